"""`streamlit run app.py` in a checkout. The router is `judgecal.app_pages.main` (settings -> st.navigation);
`judgecal app` runs the same router from judgecal/_app.py, which the wheel carries."""

from judgecal.app_pages import main

main()

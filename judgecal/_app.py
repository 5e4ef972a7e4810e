"""The script `judgecal app` hands to `streamlit run`: inside the package, so an installed wheel has it.
A function call, not the router's body at import time: Streamlit re-executes this file on every rerun."""

from judgecal.app_pages import main

main()

"""The revisions, one file per schema change (``rNNNN_what.py``); a package so that installs carry them."""

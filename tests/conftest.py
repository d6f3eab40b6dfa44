"""The suite tests the sources: a native build present in the checkout
(``rhineland native build``) is not used, as many tests look into the modules it
compiles (``RHINELAND_PURE=`` empty runs it anyway).  tests/test_native.py compares the
native build with the sources in processes of its own."""

import os

os.environ.setdefault("RHINELAND_PURE", "1")

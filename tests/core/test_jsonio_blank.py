"""A parse error on a blank input says "empty", on anything else names the line and column."""

import pytest

from tui.core import jsonio
from tui.core.errors import LoadError


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n"])
def test_blank_input_is_an_empty_file(data):
    with pytest.raises(LoadError) as caught:
        jsonio.loads(data, "f.json")
    assert caught.value.what == "empty file"


def test_a_bad_document_names_line_and_column_even_when_large():
    data = b'{"a": 1}\n' + b" " * 1_000_000 + b"\n{oops"
    with pytest.raises(LoadError) as caught:
        jsonio.loads(data, "f.json")
    assert caught.value.line == 3 and caught.value.what.startswith("invalid JSON")

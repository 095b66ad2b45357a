"""harness.once: a method of an immutable object computed at its first read and kept."""

from __future__ import annotations

from harness.core.once import once


class _Counted:
    def __init__(self) -> None:
        self.calls = 0

    @once
    def value(self) -> int:
        """The doubled number of calls so far."""
        self.calls += 1
        return 2 * self.calls


def test_the_value_is_computed_at_the_first_read_only():
    obj = _Counted()
    assert (obj.value, obj.value, obj.calls) == (2, 2, 1)
    assert _Counted().value == 2  # each instance its own


def test_read_on_the_class_it_is_the_descriptor_with_the_methods_doc():
    assert isinstance(_Counted.value, once)
    assert _Counted.value.__doc__ == "The doubled number of calls so far."


def test_one_attached_after_the_class_was_made_keeps_its_value_under_the_functions_name():
    def seven(self: object) -> int:
        return 7

    class Late:
        pass

    Late.seven = once(seven)  # (no __set_name__ outside a class body)
    obj = Late()
    assert obj.seven == 7 and obj.__dict__ == {"seven": 7}

"""`once`: a method's value computed at its first read and kept in the instance."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

_T = TypeVar("_T")


class once(Generic[_T]):  # (lower case: a decorator, as functools.cached_property)
    """A method of an immutable object whose value is computed at the first read and kept in the
    instance, as functools.cached_property does, without the lock Python 3.11 takes at every
    first read (~2 us: a tenth of classifying a case). Two threads reading it at once may both
    compute it, so only for pure methods."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.__doc__ = func.__doc__
        self.name = func.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> once[_T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> once[_T] | _T:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value

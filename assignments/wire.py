"""The data that crosses between the grader and the process that runs a submission.

A submission's function can return anything: an array, a tuple, an object that lies about
itself.  What the checks see of it is always the result of `decode` applied to what `encode`
made of it, and that is plain data only: numpy arrays of booleans or numbers, numpy scalars,
``bool``, ``int``, ``float``, ``complex``, ``None``, tuples and lists of those, and an `Opaque`
stand-in for anything else.  Arrays travel as ``.npy`` bytes (read back with
``allow_pickle=False``), everything else as JSON; nothing is ever unpickled, and no method of the
submission's objects runs where the result is decoded.

The notebooks run the same round trip (``decode(json.loads(json.dumps(encode(x))))``), so a check
sees the same thing in the student's notebook as in the grader.
"""

import base64
import io
import math

import numpy as np

MAX_ELEMENTS = 1 << 20  # elements of one array (8 MB of float64); answers here take a few thousand
MAX_ITEMS = 1000  # items of one tuple or list
MAX_DEPTH = 4  # nesting of tuples and lists
MAX_TEXT = 2000  # characters of a message or a repr
NUMBER_KINDS = "biufc"  # bool, signed and unsigned integers, floats, complex


class WireError(ValueError):
    """Data that `decode` refuses: not something that `encode` makes."""


class Opaque:
    """Stands for a returned object that is not plain data; the checks cannot read it."""

    def __init__(self, typename, text=""):
        self.typename = str(typename)[:100]
        self.text = str(text)[:200]

    def __repr__(self):
        return self.text or f"<{self.typename}>"

    def _refuse(self, *args, **kwargs):
        raise AssertionError(
            f"the function returned a {self.typename} ({self!r}), which the checks cannot read: "
            "return numpy arrays, numbers and tuples of them"
        )

    __array__ = __float__ = __int__ = __index__ = __bool__ = __len__ = __iter__ = __getitem__ = (
        _refuse
    )


def typename(value):
    """The type's name of a decoded value, seeing through `Opaque`."""
    return value.typename if isinstance(value, Opaque) else type(value).__name__


def short_text(text, limit=MAX_TEXT):
    """``text`` cut to ``limit`` characters, control characters other than newlines removed."""
    text = "".join(ch for ch in str(text)[:limit] if ch == "\n" or ch.isprintable())
    return text


def _array_bytes(a):
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(a), allow_pickle=False)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _safe_repr(value):
    try:
        return short_text(repr(value), 200)
    except Exception:
        return ""


def encode(value, depth=0):
    """A JSON-ready description of ``value`` (this runs where ``value`` was made)."""
    if value is None:
        return {"none": None}
    if type(value) is bool:
        return {"bool": value}
    if isinstance(value, np.ndarray):
        a = np.asarray(value)
        if a.dtype.kind not in NUMBER_KINDS or a.dtype.hasobject:
            return {"other": f"ndarray of dtype {a.dtype}", "repr": _safe_repr(a)}
        if a.size > MAX_ELEMENTS:
            return {"other": f"ndarray of {a.size} elements", "repr": ""}
        return {"array": _array_bytes(a)}
    if isinstance(value, np.generic):
        kind = value.dtype.kind
        if kind not in NUMBER_KINDS:
            return {"other": type(value).__name__, "repr": _safe_repr(value)}
        item = value.item()
        if kind == "c":
            item = [item.real, item.imag]
        return {"scalar": value.dtype.str, "value": item}
    if isinstance(value, int):  # a subclass of int is sent as the int it holds
        return {"int": int.__int__(value)}
    if isinstance(value, float):
        return {"float": float.__float__(value)}
    if type(value) is complex:
        return {"complex": [value.real, value.imag]}
    if isinstance(value, (tuple, list)) and depth < MAX_DEPTH and len(value) <= MAX_ITEMS:
        key = "tuple" if isinstance(value, tuple) else "list"
        return {key: [encode(item, depth + 1) for item in value]}
    return {"other": type(value).__name__, "repr": _safe_repr(value)}


def _number(obj, kinds):
    if type(obj) not in kinds:
        raise WireError(f"expected one of {[k.__name__ for k in kinds]}, got {type(obj).__name__}")
    return obj


def _dtype(text):
    if not isinstance(text, str) or len(text) > 8:
        raise WireError("a dtype must be a short string")
    try:
        dtype = np.dtype(text)
    except TypeError as exc:
        raise WireError(f"unknown dtype {text!r}") from exc
    if dtype.kind not in NUMBER_KINDS or dtype.hasobject or dtype.names is not None or dtype.shape:
        raise WireError(f"dtype {text!r} is not a plain number type")
    return dtype


def _decode_array(text):
    if not isinstance(text, str):
        raise WireError("an array must come as base64 text")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as exc:
        raise WireError("an array is not valid base64") from exc
    f = io.BytesIO(raw)
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except (ValueError, SyntaxError, TypeError) as exc:
        raise WireError(f"not an .npy array: {exc}") from exc
    if dtype.kind not in NUMBER_KINDS or dtype.hasobject or dtype.names is not None:
        raise WireError(f"an array of dtype {dtype} is not plain numbers")
    if math.prod(shape) > MAX_ELEMENTS or len(shape) > 32:
        raise WireError(f"an array of shape {shape} is larger than allowed")
    f.seek(0)
    try:
        array = np.load(f, allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise WireError(f"a truncated or malformed array: {exc}") from exc
    if not isinstance(array, np.ndarray) or array.dtype != dtype or array.shape != tuple(shape):
        raise WireError("the array does not match its header")
    return array


def decode(obj, depth=0):
    """The plain value that ``obj`` (made by `encode`, then through JSON) describes.

    Raises
    ------
    WireError
        If ``obj`` is not something that `encode` makes.
    """
    if not isinstance(obj, dict) or not 1 <= len(obj) <= 2:
        raise WireError("a value must be a JSON object with one key (two for 'scalar' and 'other')")
    if depth > MAX_DEPTH:
        raise WireError("values nested too deeply")
    (key, value), *rest = obj.items()
    if key == "none" and value is None and not rest:
        return None
    if key == "bool" and not rest:
        return _number(value, (bool,))
    if key == "int" and not rest:
        return _number(value, (int,))
    if key == "float" and not rest:
        return float(_number(value, (float, int)))
    if key == "complex" and not rest and isinstance(value, list) and len(value) == 2:
        return complex(*(float(_number(v, (float, int))) for v in value))
    if key == "array" and not rest:
        return _decode_array(value)
    if key == "scalar" and rest and rest[0][0] == "value":
        dtype, item = _dtype(value), rest[0][1]
        if dtype.kind == "c":
            if not (isinstance(item, list) and len(item) == 2):
                raise WireError("a complex scalar must come as [real, imag]")
            item = complex(*(float(_number(v, (float, int))) for v in item))
        else:
            item = _number(item, (bool, int, float))
        try:
            return dtype.type(item)
        except (OverflowError, ValueError, TypeError) as exc:
            raise WireError(f"{item!r} is not a {dtype}") from exc
    if (
        key in ("tuple", "list")
        and not rest
        and isinstance(value, list)
        and len(value) <= MAX_ITEMS
    ):
        items = [decode(item, depth + 1) for item in value]
        return tuple(items) if key == "tuple" else items
    if key == "other" and isinstance(value, str) and (not rest or rest[0][0] == "repr"):
        return Opaque(value, rest[0][1] if rest else "")
    raise WireError(f"unknown value {short_text(obj, 100)!r}")


def describe_exception(exc):
    """What the grader is told of an exception: its classes' names (most derived first) and
    its message."""
    names = [cls.__name__ for cls in type(exc).__mro__ if cls is not object][:20]
    try:
        message = short_text(str(exc))
    except Exception:  # a message that cannot even be made into text
        message = ""
    return {"names": names, "message": message}


def read_exception(obj):
    """The (names, message) of an exception described by `describe_exception`, checked."""
    if not isinstance(obj, dict) or set(obj) != {"names", "message"}:
        raise WireError("an exception must come as {'names': [...], 'message': '...'}")
    names, message = obj["names"], obj["message"]
    if not (
        isinstance(names, list) and 1 <= len(names) <= 20 and all(isinstance(n, str) for n in names)
    ):
        raise WireError("an exception's class names must be a list of strings")
    if not isinstance(message, str):
        raise WireError("an exception's message must be a string")
    return tuple(short_text(n, 100) for n in names), short_text(message)

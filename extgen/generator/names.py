"""The names a config may give: identifiers that every target language accepts as they are
spelled in the generated code, and strings that are safe to paste into source files.

A name is refused when it is a keyword, or a name the generated code defines, includes or uses,
in any target: C/C++ (keywords, libc and math macros, the template's own namespaces, classes,
members and locals), OpenCL C (keywords, builtins, the SimpleGPU JIT macros an attribute's
upper-cased macro would redefine) and Python (keywords, the builtins and imports the modules
use). The union is reserved, so a config stays valid whatever targets are asked for later."""

from __future__ import annotations

import keyword
import re
import unicodedata

__all__ = ["MAX_NAME", "OP_NAMES", "check_identifier", "check_macro", "check_text",
           "fold_identifier", "torch_type_problem"]

# an op name becomes <snake>_kernel.xml and a temporary .<file>.XXXXXXXX: 100 characters give a
# snake name of at most 199 bytes, so every generated file name fits 255 bytes
MAX_NAME = 100

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CPP_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char8_t char16_t char32_t class compl concept const consteval constexpr constinit const_cast
continue co_await co_return co_yield decltype default delete do double dynamic_cast else enum
explicit export extern false float for friend goto if inline int long mutable namespace new
noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct
switch template this thread_local throw true try typedef typeid typename union unsigned using
virtual void volatile wchar_t while xor xor_eq""".split())
# predefined macros (gnu++17 defines linux and unix), libc/math macros and types, and what the
# C++ templates define or use unqualified: namespaces, classes, members, locals, parameters
_CPP_NAMES = set("""linux unix i386 NULL errno EOF assert offsetof stdin stdout stderr
NAN INFINITY HUGE_VAL HUGE_VALF M_PI M_E M_PI_2 M_PI_4 M_1_PI M_2_PI M_SQRT2 M_SQRT1_2 M_LN2
M_LN10 M_LOG2E M_LOG10E M_2_SQRTPI EXIT_SUCCESS EXIT_FAILURE RAND_MAX CHAR_BIT INT_MAX INT_MIN
UINT_MAX LONG_MAX LONG_MIN FLT_MAX FLT_MIN FLT_EPSILON DBL_MAX DBL_MIN DBL_EPSILON
INT8_MAX INT16_MAX INT32_MAX INT64_MAX INT64_MIN SIZE_MAX size_t ptrdiff_t int8_t int16_t
int32_t int64_t uint8_t uint16_t uint32_t uint64_t std ov extgen user_ops kernels T K F main
constructor_validate_and_infer_types EXTGEN_ABI_H EXTGEN_ABI_EXPORT EXTGEN_ABI_VERSION
EXTGEN_MAX_RANK EXTGEN_WITH_ONNX_FRONTEND
IMPLEMENT_OPENVINO_EXTENSION_API OPENVINO_OP OPENVINO_THROW OPENVINO_ASSERT
OPENVINO_CREATE_EXTENSIONS NODE_VALIDATION_CHECK""".split())
# an op name is also a C++ class (whose members must not share its name) and a Python class
OP_NAMES = set("""type infer compute execute kernel evaluate has_evaluate validate_and_infer_types
clone_with_new_inputs visit_attributes from_attrs from_onnx registered np Op annotations cast_attr
collect_attributes embed_blobs get_param FrontExtractorOp CaffePythonFrontExtractorOp onnx_attr
_text _erf list bool dict set getattr isinstance bytes NotImplementedError""".split())
_OPENCL_NAMES = set("""__kernel kernel __global global __local local __constant constant
__private private read_only write_only read_write half uchar ushort uint ulong size_t ptrdiff_t
intptr_t uintptr_t image2d_t image3d_t sampler_t event_t bool2 float2 float4 int2 int4 restrict
get_global_id get_global_size get_local_id get_local_size get_group_id get_num_groups
get_work_dim barrier convert_float convert_half vload_half vstore_half i""".split())
# macros an attribute NAME (its upper-cased macro) must not redefine: OpenCL's and the JIT's
_OPENCL_MACROS = set("""NAN INFINITY MAXFLOAT HUGE_VAL HUGE_VALF M_PI M_PI_F M_E M_E_F M_PI_2
M_PI_2_F M_PI_4 M_PI_4_F M_SQRT2 M_SQRT2_F M_LN2 M_LN2_F M_LN10 M_LN10_F FLT_MAX FLT_MIN
FLT_EPSILON FLT_DIG FLT_MANT_DIG DBL_MAX DBL_MIN DBL_EPSILON CHAR_BIT CHAR_MAX CHAR_MIN INT_MAX
INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX SHRT_MAX SHRT_MIN SCHAR_MAX SCHAR_MIN UCHAR_MAX
USHRT_MAX NULL CL_VERSION_1_0 CL_VERSION_1_1 CL_VERSION_1_2 CL_VERSION_2_0 FAST_RELAXED_MATH
FP_FAST_FMA FP_FAST_FMAF CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE NUM_INPUTS""".split())
_JIT_MACRO = re.compile(r"(INPUT|OUTPUT)\d+_\w+|(HALF|GLOBAL_WORKSIZE|LOCAL_WORKSIZE)\w*|"
                        r"(IN|OUT|X)\d+")
_KERNEL_LOCAL = re.compile(r"(in|out)\d+")
_RESERVED = ((set(keyword.kwlist) | set(keyword.softkwlist), "a keyword of Python"),
             (_CPP_KEYWORDS, "a keyword of C++"), (_OPENCL_NAMES, "a keyword of OpenCL C"),
             (_CPP_NAMES, "a name the generated C++ defines or uses"),
             (_OPENCL_MACROS, "a macro of OpenCL C"))


def check_identifier(value: str) -> str:
    """value, when it can name an op, port or attribute in every target; else ValueError."""
    if not _IDENT.fullmatch(value):
        if "/" in value or "\\" in value or ".." in value:
            msg = f"{value!r} must not contain path separators or '..'"
        else:
            msg = f"{value!r} is not an identifier (letters, digits, _; not starting with a digit)"
        raise ValueError(msg)
    if len(value) > MAX_NAME:
        msg = f"{value[:20]!r}... is {len(value)} characters long; use at most {MAX_NAME}"
        raise ValueError(msg)
    for words, what in _RESERVED:
        if value in words:
            msg = f"{value!r} is {what}; choose another name"
            raise ValueError(msg)
    if "__" in value or re.match(r"_[A-Z]", value) or _KERNEL_LOCAL.fullmatch(value):
        msg = f"{value!r} is reserved (double underscore, _ + capital, or a kernel's in<k>/out<k>)"
        raise ValueError(msg)
    return value


def check_macro(name: str) -> None:
    """An attribute's OpenCL macro (its name upper-cased) must not redefine another one."""
    macro = name.upper()
    if macro in _OPENCL_MACROS or _JIT_MACRO.fullmatch(macro):
        msg = f"{name!r} becomes the OpenCL macro {macro}, which the kernel already has"
        raise ValueError(msg)


def check_text(value: str, *, whitespace: bool = False) -> str | None:
    """What makes value unsafe to paste into generated source or XML, or None: a control
    character (tab and newlines allowed with whitespace), a lone surrogate or a non-character."""
    for c in value:
        if whitespace and c in "\t\n\r":
            continue
        cat = unicodedata.category(c)
        if cat == "Cc" or cat == "Cs" or c in "\ufffe\uffff":
            return f"character {c!r} is not allowed"
    return None


def fold_identifier(text: str, prefix: str) -> str:
    """text as an identifier: accents dropped, other characters as _, prefix when it starts
    with a digit or is still refused (then possibly shortened)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    name = re.sub(r"[^A-Za-z0-9_]", "_", ascii_text).strip("_")[:MAX_NAME]
    name = re.sub(r"_{2,}", "_", name)
    for candidate in (name, f"{prefix}_{name}"[:MAX_NAME].rstrip("_"), prefix):
        try:
            check_identifier(candidate)
            check_macro(candidate)
        except ValueError:
            continue
        return candidate
    return prefix


def torch_type_problem(op_type: str) -> str | None:
    """Why op_type cannot name a torch.library custom op ('namespace::op'), or None."""
    if re.fullmatch(r"\w+::\w+", op_type):
        return None
    return "must be 'namespace::op', as torch.library names a custom op"

"""The type stubs (adbwire/_adbwire.pyi) describe the extension module as built: the same names,
the same methods with the same parameters, the same properties; and everything has a docstring."""

import ast
import inspect
import pathlib
import re

import adbwire
from adbwire import _adbwire

STUBS = pathlib.Path(adbwire.__file__).with_name("_adbwire.pyi")
SKIPPED_DUNDERS = {"__init__", "__repr__"}


def stub_classes():
    tree = ast.parse(STUBS.read_text())
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    values = {
        node.target.id
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and not node.target.id.startswith("_")
    } | {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    return classes, values | {"__version__"}


def runtime_signatures(function, name):
    """Parameter names of each overload, from pybind11's docstring signatures."""
    signatures = []
    for line in (function.__doc__ or "").splitlines():
        match = re.match(r"^(?:\d+\. )?%s\((.*)\) ->" % re.escape(name), line)
        if match:
            names = []
            depth = 0
            current = ""
            for char in match.group(1) + ",":
                if char in "[(":
                    depth += 1
                elif char in "])":
                    depth -= 1
                if char == "," and depth == 0:
                    names.append(current.split(":")[0].split("=")[0].strip())
                    current = ""
                else:
                    current += char
            signatures.append([n.lstrip("*") for n in names if n not in ("self", "*", "")])
    return signatures


def test_module_names_match():
    classes, values = stub_classes()
    runtime = {name for name in dir(_adbwire) if not name.startswith("_")} | {"__version__"}
    assert set(classes) | values == runtime


def test_members_and_parameters_match():
    classes, _ = stub_classes()
    for class_name, node in classes.items():
        cls = getattr(_adbwire, class_name)
        if issubclass(cls, BaseException) or class_name == "ErrorCode":
            continue
        stub_methods = {
            item.name: item
            for item in node.body
            if isinstance(item, ast.FunctionDef)
            and not any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list)
        }
        stub_properties = {
            item.name
            for item in node.body
            if isinstance(item, ast.FunctionDef) and item not in stub_methods.values()
        } | {item.target.id for item in node.body if isinstance(item, ast.AnnAssign)}
        runtime_properties = {
            name for name, value in vars(cls).items() if isinstance(value, property)
        }
        runtime_methods = (
            {
                name
                for name, value in vars(cls).items()
                if not isinstance(value, property)
                and callable(value)
                or isinstance(value, staticmethod)
            }
            - SKIPPED_DUNDERS
            - {"__new__"}
        )
        assert stub_properties == runtime_properties, class_name
        assert set(stub_methods) - SKIPPED_DUNDERS == runtime_methods, class_name
        for name, item in stub_methods.items():
            if name in SKIPPED_DUNDERS:
                continue
            parameters = [a.arg for a in item.args.args + item.args.kwonlyargs if a.arg != "self"]
            if item.args.vararg is not None:
                parameters.append(item.args.vararg.arg)
            if item.args.kwarg is not None:
                parameters.append(item.args.kwarg.arg)
            verb = getattr(getattr(cls, name), "_adbwire_verb", None)
            if verb is not None:
                # A method the package makes from the verb table: its positional parameters,
                # then the verb's other parameters as keywords.
                positional = next(v["positional"] for v in adbwire.verbs() if v["name"] == verb)
                assert parameters == positional + ["arguments"], (class_name, name, parameters)
                continue
            overloads = runtime_signatures(getattr(cls, name), name)
            assert parameters in overloads, (class_name, name, parameters, overloads)


def test_error_classes_and_codes_match():
    classes, _ = stub_classes()
    for name, node in classes.items():
        cls = getattr(_adbwire, name)
        if issubclass(cls, BaseException):
            assert [base.id for base in node.bases] == [cls.__bases__[0].__name__], name
    codes = {
        target.id: item.value.value
        for item in classes["ErrorCode"].body
        if isinstance(item, ast.Assign)
        for target in item.targets
    }
    assert codes == {code.name: code.value for code in adbwire.ErrorCode}


def test_everything_is_documented():
    for name in dir(_adbwire):
        if name.startswith("_"):
            continue
        value = getattr(_adbwire, name)
        assert inspect.getdoc(value), name
        if not inspect.isclass(value) or issubclass(value, BaseException):
            continue
        for member, attribute in vars(value).items():
            if member.startswith("_"):
                continue
            assert inspect.getdoc(attribute), "%s.%s" % (name, member)

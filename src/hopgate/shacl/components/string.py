"""String-based constraint components (SHACL 1.0 section 4.4): ``sh:minLength``,
``sh:maxLength``, ``sh:pattern``, ``sh:languageIn``, ``sh:uniqueLang``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import pyoxigraph as ox
from rdflib.collection import Collection
from rdflib.namespace import SH
from rdflib.term import Literal, URIRef

from hopgate.errors import UnsupportedShape
from hopgate.shacl.components.base import Component, Constraint, Scope, integer, true
from hopgate.shacl.lexical import lang_expr


def _length(
    parameter: URIRef, component: URIRef, test: str
) -> Callable[[Scope], Iterator[Constraint]]:
    """A value node whose string is ``test`` the bound in length, or a blank node."""

    def compile(scope: Scope) -> Iterator[Constraint]:
        value = scope.value
        for bound in scope.objects(parameter):
            limit = integer(bound)
            yield Constraint(
                component,
                f"{scope.values} FILTER(isBlank({value}) || STRLEN(STR({value})) {test} {limit})",
                scope.of_value,
            )

    compile.__doc__ = f"{parameter.n3()}: a blank node, or a string {test} the bound in length."
    return compile


min_length = _length(SH.minLength, SH.MinLengthConstraintComponent, "<")
max_length = _length(SH.maxLength, SH.MaxLengthConstraintComponent, ">")


@functools.cache
def _probe() -> ox.Store:
    """An empty store that compiles regular expressions as the store engine will."""
    return ox.Store()


@functools.lru_cache(maxsize=1024)
def _check_regex(pattern: str, flags: str | None) -> None:
    """A ``sh:pattern`` the store's engine compiles, else :class:`UnsupportedShape`.

    Oxigraph's REGEX (Rust's ``regex`` crate: finite automata, time linear in
    the text, a bounded program size) leaves a pattern it cannot compile
    unbound, which a FILTER reads as no violation: the shape would conform
    unchecked. Such a pattern (a back-reference, a look-around, one too large)
    goes to pySHACL instead.
    """
    arguments = Literal(pattern).n3() + ("" if flags is None else f", {Literal(flags).n3()}")
    try:
        solutions = _probe().query(f'SELECT (REGEX("", {arguments}) AS ?ok) {{}}')
        compiled = [row[0] for row in solutions]  # type: ignore[union-attr]
    except SyntaxError:
        compiled = [None]
    if compiled[0] is None:
        raise UnsupportedShape(
            f"sh:pattern {pattern!r}{'' if flags is None else f' (flags {flags!r})'}: the "
            "store's regular expression engine cannot compile it"
        )


def pattern(scope: Scope) -> Iterator[Constraint]:
    """4.4.3 ``sh:pattern`` (with ``sh:flags``): a blank node, or a string the expression does not match."""
    value = scope.value
    for expression in scope.objects(SH.pattern):
        flags = scope.compiler.shapes.value(scope.shape, SH.flags)
        _check_regex(str(expression), None if flags is None else str(flags))
        regex = f"regex(str({value}), {Literal(str(expression)).n3()}" + (
            f", {Literal(str(flags)).n3()})" if flags is not None else ")"
        )
        yield Constraint(
            SH.PatternConstraintComponent,
            f"{scope.values} FILTER(isBlank({value}) || !{regex})",
            scope.of_value,
        )


def language_in(scope: Scope) -> Iterator[Constraint]:
    """4.4.4 ``sh:languageIn``: a value node whose language tag matches none of the ranges."""
    compiler, value = scope.compiler, scope.value
    for ranges in scope.objects(SH.languageIn):
        tags = sorted({Literal(str(t)).n3() for t in Collection(compiler.shapes, ranges)})
        lang, tag = lang_expr(value, written=compiler.written), compiler.fresh("r")
        # The ranges as a VALUES table, not a chain of || (see sh:in).
        yield Constraint(
            SH.LanguageInConstraintComponent,
            f"{scope.values} FILTER(!isLiteral({value}) || NOT EXISTS {{ VALUES {tag} "
            f"{{ {' '.join(tags)} }} FILTER(langMatches({lang}, {tag})) }})",
            scope.of_value,
        )


def unique_lang(scope: Scope) -> Iterator[Constraint]:
    """4.4.5 ``sh:uniqueLang``: one result per language tag that two value nodes share."""
    compiler, focus, value = scope.compiler, scope.focus, scope.value
    for unique in scope.objects(SH.uniqueLang):
        if not true(unique):
            continue
        steps = scope.needs_path(SH.uniqueLang)
        other, tag = compiler.fresh("u"), compiler.fresh("t")
        lang = lang_expr(value, written=compiler.written)
        yield Constraint(
            SH.UniqueLangConstraintComponent,
            f"{scope.values} {focus} {steps} {other} . "
            f"FILTER(!sameTerm({value}, {other}) && {lang} != '' && "
            f"LCASE({lang}) = LCASE({lang_expr(other, written=compiler.written)})) "
            f"BIND(LCASE({lang}) AS {tag})",
            f"{focus} {tag}",
        )


COMPONENTS = (
    Component(SH.MinLengthConstraintComponent, (SH.minLength,), "4.4.1", min_length),
    Component(SH.MaxLengthConstraintComponent, (SH.maxLength,), "4.4.2", max_length),
    Component(SH.PatternConstraintComponent, (SH.pattern, SH.flags), "4.4.3", pattern),
    Component(SH.LanguageInConstraintComponent, (SH.languageIn,), "4.4.4", language_in),
    Component(SH.UniqueLangConstraintComponent, (SH.uniqueLang,), "4.4.5", unique_lang),
)

__all__ = ["COMPONENTS"]

"""``.. families::``: the table of families, read from the one registry of the package
(:mod:`primitives._core.registry`): each family's functions, variants and page."""

from docutils import nodes
from docutils.parsers.rst import Directive


def _literal(text):
    return nodes.literal(text, text)


class Families(Directive):
    has_content = False

    def run(self):
        from primitives._core import registry

        table = nodes.table()
        group = nodes.tgroup(cols=4)
        table += group
        for width in (12, 30, 40, 12):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        body = nodes.tbody()
        group += body

        def row(cells, into):
            r = nodes.row()
            for c in cells:
                entry = nodes.entry()
                entry += c if isinstance(c, nodes.Node) else nodes.paragraph(text=c)
                r += entry
            into += r

        row(["family", "functions", "variants (variant=)", "page"], head)
        for fam in registry.FAMILIES:
            funcs = nodes.paragraph()
            for i, fn in enumerate(fam.functions):
                funcs += _literal(f"prim.{fn}")
                if i + 1 < len(fam.functions):
                    funcs += nodes.Text(", ")
            variants = nodes.paragraph()
            for i, v in enumerate(fam.variants()):
                variants += _literal(v)
                if i + 1 < len(fam.variants()):
                    variants += nodes.Text(", ")
            row([fam.name, funcs, variants, f"{fam.doc}" if fam.doc else ""], body)
        return [table]


def setup(app):
    app.add_directive("families", Families)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

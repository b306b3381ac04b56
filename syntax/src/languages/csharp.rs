//! C#: `.cs` files, tree-sitter-c-sharp; a declaration reader (`csharp_items`), else
//! the skeleton lexer of the C family (`skeleton_c`).
//!
//! A symbol is what universal-ctags lists for C#: namespaces (`module`; `A.B` as
//! `A/B`), classes and records (`class`; a `record struct` is a `struct`), structs,
//! interfaces, enums and their members, delegates (`type_alias`: a named function
//! type), methods, constructors, destructors (`~Name`, a `method`), operators
//! (`operator +`, `operator int`), properties and indexers (`this`), events
//! (`property` with accessors, `field` without: there is no event kind), fields
//! (`constant` when `const`). Locals, parameters and accessors are not.
//!
//! A file-scoped namespace (`namespace A.B;`) holds the rest of the file, which the
//! grammar leaves beside it: it is a `module` of its line, and the declarations after
//! it have it as their qualifier (`A/B/Foo`), as a block namespace's members would.
//! `[Attributes]` above a declaration are in its range (`[assembly: …]` lines belong
//! to no declaration); `///` XML doc comments above them travel with it. A field of
//! several names (`int a, b;`) gives a symbol per name sharing its range (`decl.rs`).
//! Declarations inside `#if` blocks are listed where they would be without them.

use tree_sitter::Node;

use super::{
    Language, Reader, SkeletonLexer,
    c::{COMMENTS, scope_path},
};
use crate::{
    SymbolKind,
    classify::{Def, Visit, field, has_child, named, one, signature, text, token},
    decl,
    skeleton_c::{self, Dialect},
};

pub(super) const CSHARP: Language = Language {
    name: "csharp",
    extensions: &["cs"],
    lsp_id: "csharp",
    grammar: Some(|| tree_sitter_c_sharp::LANGUAGE.into()),
    classify: |node, src, _| classify(node, src),
    sibling_attribute: None,
    comments: COMMENTS,
    imports: &["using_directive"],
    keywords: &[
        "public",
        "private",
        "protected",
        "internal",
        "file",
        "static",
        "abstract",
        "sealed",
        "partial",
        "class",
        "struct",
        "interface",
        "enum",
        "record",
        "namespace",
        "delegate",
        "event",
        "override",
        "virtual",
        "readonly",
        "required",
        "const",
        "volatile",
        "async",
        "extern",
        "unsafe",
        "new",
        "ref",
        "fixed",
        "implicit",
        "explicit",
        "operator",
    ],
    attribute: |t| {
        t.starts_with(b"[") && !t.starts_with(b"[assembly:") && !t.starts_with(b"[module:")
    },
    probe: |site| {
        use SymbolKind as K;
        match (site.kind, site.parent) {
            (K::EnumMember, _) => "LeanCtxProbe,",
            (_, Some(K::Class | K::Struct | K::Interface)) => "void LeanCtxProbe() {}",
            _ => "class LeanCtxProbe {}",
        }
    },
    declarations: Some(Reader {
        read: crate::csharp_items::parse,
        // Operators and destructors are named by what is before their name.
        name: Some(|src, _, name| crate::csharp_items::name(src, name)),
        own_start: None,
    }),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_c::skippable(Dialect::CSharp, src),
        mark: None,
        any_error: false,
    }),
};

fn classify<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    let mut visits = symbols(node, src);
    // Without a body or value, the signature stops at the `;` (`void M();`, `record
    // R(int X);`, `namespace A;`).
    for visit in &mut visits {
        if let Visit::Symbol(def) = visit
            && def.signature_end.is_none()
            && def.body.is_none()
            && def.signature.is_none()
        {
            def.signature_end = token(node, &[";"]).map(|t| t.start_byte());
        }
    }
    visits
}

fn symbols<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let body = field(node, "body");
    // Where the signature stops: a property's accessors or value, a method's body.
    let opener = || {
        let mut cursor = node.walk();
        node.children(&mut cursor).find(|c| {
            matches!(
                c.kind(),
                "accessor_list" | "arrow_expression_clause" | "block" | "constructor_initializer"
            )
        })
    };
    let in_file_namespace = |d: Def<'t>| Def {
        qualifier: file_namespace(node, src),
        ..d
    };
    match node.kind() {
        "namespace_declaration" | "file_scoped_namespace_declaration" => {
            let Some(name) = field(node, "name") else {
                return vec![Visit::Skip];
            };
            // `A.B`: the namespace `B` in `A`.
            let (leaf, qualifier) = match field(name, "name") {
                Some(leaf) if name.kind() == "qualified_name" => (
                    leaf,
                    field(name, "qualifier").map(|q| scope_path(text(q, src))),
                ),
                _ => (name, None),
            };
            one(Some(Def {
                qualifier,
                ..Def::new(K::Module, node, leaf, src).body(body)
            }))
        }
        "class_declaration"
        | "struct_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration" => {
            let kind = match node.kind() {
                "struct_declaration" => K::Struct,
                "record_declaration" if has_child(node, "struct") => K::Struct,
                "interface_declaration" => K::Interface,
                "enum_declaration" => K::Enum,
                _ => K::Class,
            };
            one(named(kind, node, src).map(|d| in_file_namespace(d.body(body))))
        }
        "delegate_declaration" => one(named(K::TypeAlias, node, src).map(in_file_namespace)),
        "method_declaration" => one(named(K::Method, node, src).map(|d| d.sig_end(opener()))),
        "constructor_declaration" => {
            one(named(K::Constructor, node, src).map(|d| d.sig_end(opener())))
        }
        "destructor_declaration" => one(named(K::Method, node, src).map(|d| Def {
            name: format!("~{}", d.name),
            ..d.sig_end(opener())
        })),
        "operator_declaration" | "conversion_operator_declaration" => {
            // `operator +`, `operator int`: named by the operator or the target type.
            let symbol = field(node, "operator").or(field(node, "type"));
            one(symbol.map(|s| Def {
                name: format!("operator {}", text(s, src)),
                ..Def::new(K::Method, node, s, src).sig_end(opener())
            }))
        }
        "property_declaration" | "event_declaration" => {
            one(named(K::Property, node, src).map(|d| d.sig_end(opener())))
        }
        "indexer_declaration" => {
            let this = {
                let mut cursor = node.walk();
                node.children(&mut cursor).find(|c| c.kind() == "this")
            };
            one(this.map(|t| Def::new(K::Property, node, t, src).sig_end(opener())))
        }
        "field_declaration" | "event_field_declaration" => fields(node, src),
        "enum_member_declaration" => one(named(K::EnumMember, node, src)),
        "declaration_list" | "preproc_if" | "preproc_elif" | "preproc_else" => {
            vec![Visit::Descend]
        }
        _ => vec![Visit::Skip],
    }
}

/// A field declaration's names (`int a, b = 2;`), each a symbol of the whole
/// declaration with a signature naming it alone.
fn fields<'t>(node: Node<'t>, src: &[u8]) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let mut cursor = node.walk();
    let Some(variables) = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "variable_declaration")
    else {
        return vec![Visit::Skip];
    };
    let constant = {
        let mut cursor = node.walk();
        node.named_children(&mut cursor)
            .any(|m| m.kind() == "modifier" && text(m, src) == "const")
    };
    let kind = if constant { K::Constant } else { K::Field };
    let mut cursor = variables.walk();
    let declarators: Vec<Node<'t>> = variables
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "variable_declarator")
        .collect();
    let core = decl::core_start(node);
    let head_end = declarators.first().map_or(core, |d| d.start_byte());
    let head = &src[core.min(head_end)..head_end];
    declarators
        .into_iter()
        .filter_map(|d| {
            let name = field(d, "name")?;
            let end = {
                let mut cursor = d.walk();
                d.children(&mut cursor)
                    .find(|c| c.kind() == "=")
                    .map_or(d.end_byte(), |eq| eq.start_byte())
            };
            let own = &src[d.start_byte()..end];
            let sig = signature(&decl::strip_comments(&COMMENTS, &[head, own].concat()));
            Some(Visit::Symbol(Box::new(Def {
                signature: Some(sig),
                ..Def::new(kind, node, name, src)
            })))
        })
        .collect()
}

/// The file-scoped namespace (`namespace A.B;`) above a top-level declaration, as
/// its qualifier (`A/B`).
fn file_namespace(node: Node<'_>, src: &[u8]) -> Option<String> {
    node.parent().filter(|p| p.kind() == "compilation_unit")?;
    let mut at = node.prev_named_sibling();
    while let Some(n) = at {
        if n.kind() == "file_scoped_namespace_declaration" {
            return field(n, "name").map(|name| scope_path(text(name, src)));
        }
        at = n.prev_named_sibling();
    }
    None
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn csharp_namespaces_types_members_attributes_and_doc_comments() {
        check(
            Lang::CSharp,
            r#"using System;
using System.Collections.Generic;

[assembly: CLSCompliant(true)]

namespace Python.Runtime.Native
{
    /// <summary>
    /// A borrowed reference.
    /// </summary>
    [Serializable]
    [DebuggerDisplay("{Name}")]
    public sealed class PyRef<T> : IDisposable where T : class
    {
        public const int Max = 3, Min = 1;
        private readonly IntPtr handle;
        internal static event EventHandler Changed;

        /// <summary>The name.</summary>
        public string Name { get; set; } = "";
        public int Count => 1;
        public event EventHandler Closed { add { } remove { } }
        public T this[int index] => default;

        public PyRef(IntPtr handle) : base() { this.handle = handle; }
        static PyRef() { }
        ~PyRef() { }

        [Obsolete("Use Dispose")]
        public void Close() { var local = 1; }
        void IDisposable.Dispose() { }
        public static PyRef<T> operator +(PyRef<T> a, PyRef<T> b) => a;
        public static implicit operator IntPtr(PyRef<T> r) => r.handle;

        public delegate void Callback(int code);

        internal struct Slot { public int Index; }

        enum Kind
        {
            None = 0,
            [Obsolete] Legacy,
            Modern,
        }
    }

    public interface IConvert
    {
        bool TryDecode(object value, out object result);
        int Priority { get; }
    }

    public record Pair(int A, int B);
    public record struct Point(int X, int Y) { public int Sum() => X + Y; }
}
"#,
            expect![[r#"
                module Python/Runtime/Native 6:0-55:1 name@6:25 | namespace Python.Runtime.Native
                  class Python/Runtime/Native/PyRef 11:4-45:5 name@13:24 | public sealed class PyRef<T> : IDisposable where T : class
                    constant Python/Runtime/Native/PyRef/Max 15:8-15:42 name@15:25 | public const int Max
                    constant Python/Runtime/Native/PyRef/Min 15:8-15:42 name@15:34 | public const int Min
                    field Python/Runtime/Native/PyRef/handle 16:8-16:39 name@16:32 | private readonly IntPtr handle
                    field Python/Runtime/Native/PyRef/Changed 17:8-17:51 name@17:43 | internal static event EventHandler Changed
                    property Python/Runtime/Native/PyRef/Name 20:8-20:46 name@20:22 | public string Name
                    property Python/Runtime/Native/PyRef/Count 21:8-21:30 name@21:19 | public int Count
                    property Python/Runtime/Native/PyRef/Closed 22:8-22:63 name@22:34 | public event EventHandler Closed
                    property Python/Runtime/Native/PyRef/this 23:8-23:44 name@23:17 | public T this[int index]
                    constructor Python/Runtime/Native/PyRef/PyRef 25:8-25:70 name@25:15 | public PyRef(IntPtr handle)
                    constructor Python/Runtime/Native/PyRef/PyRef[1] 26:8-26:26 name@26:15 | static PyRef()
                    method Python/Runtime/Native/PyRef/~PyRef 27:8-27:20 name@27:9 | ~PyRef()
                    method Python/Runtime/Native/PyRef/Close 29:8-30:46 name@30:20 | public void Close()
                    method Python/Runtime/Native/PyRef/Dispose 31:8-31:38 name@31:25 | void IDisposable.Dispose()
                    method Python/Runtime/Native/PyRef/operator + 32:8-32:71 name@32:40 | public static PyRef<T> operator +(PyRef<T> a, PyRef<T> b)
                    method Python/Runtime/Native/PyRef/operator IntPtr 33:8-33:71 name@33:40 | public static implicit operator IntPtr(PyRef<T> r)
                    type_alias Python/Runtime/Native/PyRef/Callback 35:8-35:48 name@35:29 | public delegate void Callback(int code)
                    struct Python/Runtime/Native/PyRef/Slot 37:8-37:50 name@37:24 | internal struct Slot
                      field Python/Runtime/Native/PyRef/Slot/Index 37:31-37:48 name@37:42 | public int Index
                    enum Python/Runtime/Native/PyRef/Kind 39:8-44:9 name@39:13 | enum Kind
                      enum_member Python/Runtime/Native/PyRef/Kind/None 41:12-41:20 name@41:12 | None = 0
                      enum_member Python/Runtime/Native/PyRef/Kind/Legacy 42:12-42:29 name@42:23 | Legacy
                      enum_member Python/Runtime/Native/PyRef/Kind/Modern 43:12-43:18 name@43:12 | Modern
                  interface Python/Runtime/Native/IConvert 47:4-51:5 name@47:21 | public interface IConvert
                    method Python/Runtime/Native/IConvert/TryDecode 49:8-49:56 name@49:13 | bool TryDecode(object value, out object result)
                    property Python/Runtime/Native/IConvert/Priority 50:8-50:29 name@50:12 | int Priority
                  class Python/Runtime/Native/Pair 53:4-53:37 name@53:18 | public record Pair(int A, int B)
                  struct Python/Runtime/Native/Point 54:4-54:75 name@54:25 | public record struct Point(int X, int Y)
                    method Python/Runtime/Native/Point/Sum 54:47-54:73 name@54:58 | public int Sum()
            "#]],
        );
    }

    #[test]
    fn a_file_scoped_namespace_qualifies_what_follows_it() {
        check(
            Lang::CSharp,
            r#"namespace Python.Runtime;

internal static class Util
{
    internal static int Read(IntPtr ptr) => 0;
}

public delegate void Handler();
"#,
            expect![[r#"
                module Python/Runtime 1:0-1:25 name@1:17 | namespace Python.Runtime
                class Python/Runtime/Util 3:0-6:1 name@3:22 | internal static class Util
                  method Python/Runtime/Util/Read 5:4-5:46 name@5:24 | internal static int Read(IntPtr ptr)
                type_alias Python/Runtime/Handler 8:0-8:31 name@8:21 | public delegate void Handler()
            "#]],
        );
    }
}

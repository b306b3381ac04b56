//! C and C++: `.c` files read by tree-sitter-c; `.cc`, `.cpp`, `.cxx`, `.hpp`, … and
//! `.h` by tree-sitter-cpp (headers are C++'s, as universal-ctags maps them: the C++
//! grammar reads C headers as well as C's own does). One `classify` serves both, C's
//! node kinds being a subset of C++'s. The declaration reader (`c_items`) reads C
//! and C++; where it declines, the skeleton lexer (`skeleton_c`) leaves function
//! bodies and initializers out of the parse.
//!
//! A symbol is what universal-ctags lists by default, and prototypes:
//!
//! - functions (`function`), and their prototypes: a header's prototypes are its
//!   API; members of a class, struct or union (`method`, `constructor` where the
//!   name is the type's), and out-of-class definitions `void Foo::bar() {}`, listed
//!   under `Foo` (`Foo/bar`, through `Def::qualifier`) as methods: the grammar cannot
//!   tell a class from a namespace there;
//! - `struct`, `union`, `enum`, `class` (C++) with a body, their fields and
//!   enumerators; namespaces (`module`, `a::b` as `a/b`);
//! - `typedef` and `using X = …` (`type_alias`); file-scope variables, `constant`
//!   where the object itself is `const` or `constexpr`; `#define`s (`macro`), but not
//!   an include guard;
//! - declarations inside `#if`/`#ifdef` blocks, `extern "C" {…}` and anonymous
//!   namespaces, listed where they would be without them.
//!
//! A declaration of several names (`int a, *b;`, `typedef struct node {…} node_t;`)
//! gives a symbol per name sharing its range (`decl.rs`), each with a signature of its
//! own; a typedef's anonymous struct is named by the typedef (`typedef struct {…}
//! point_t;` is the struct `point_t`). `template <…>` and a braceless `extern "C"`
//! are in the range of what they declare; attributes (`[[…]]`, `__attribute__`,
//! `__declspec`) are in the range, before the core; so is the `;` after a type
//! defined alone (`struct tag {…};`), which the grammar leaves outside its node.
//! The members of an anonymous union, struct or enum are listed where it is (C11's
//! anonymous members, `enum { A, B };`'s constants), sharing its range when its list
//! opens on the line of its first member. `struct EXPORT_MACRO Name {…}`, which
//! tree-sitter-cpp reads as a function, is the struct `Name`. Locals and parameters
//! are not symbols.

use tree_sitter::Node;

use super::{Language, ProbeSite, Reader, SkeletonLexer};
use crate::{
    SymbolKind,
    classify::{Def, Visit, field, has_child, signature, text, token},
    decl::{self, C_BLOCK, Comments, DocBlock},
    skeleton_c::{self, Dialect},
};

/// Doxygen's doc comments, `/** … */` and `///` lines; C#'s XML doc comments too
/// (`///`, the rare `/** … */`).
pub(super) const COMMENTS: Comments = Comments {
    line: &[b"//"],
    block: Some(C_BLOCK),
    doc_line: Some(|l| l.starts_with(b"///") && !l.starts_with(b"////")),
    doc_block: DocBlock::One,
    quotes: b"\"'",
};

pub(super) const C: Language = Language {
    name: "c",
    extensions: &["c"],
    lsp_id: "c",
    grammar: Some(|| tree_sitter_c::LANGUAGE.into()),
    classify,
    sibling_attribute: None,
    comments: COMMENTS,
    imports: &["preproc_include"],
    keywords: &[
        "static",
        "extern",
        "inline",
        "typedef",
        "struct",
        "union",
        "enum",
        "const",
        "volatile",
        "register",
        "auto",
        "unsigned",
        "signed",
        "void",
        "int",
        "char",
        "long",
        "short",
        "float",
        "double",
        "_Noreturn",
        "_Thread_local",
        "__inline",
        "__inline__",
        "__extension__",
    ],
    attribute: is_attribute,
    probe,
    declarations: Some(Reader {
        read: crate::c_items::parse,
        name: None,
        own_start: Some(crate::c_items::own_start),
    }),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_c::skippable(Dialect::C, src),
        mark: None,
        any_error: false,
    }),
};

pub(super) const CPP: Language = Language {
    name: "cpp",
    extensions: &[
        "cc", "cpp", "cxx", "c++", "h", "hh", "hpp", "hxx", "h++", "inl", "ipp", "tpp",
    ],
    lsp_id: "cpp",
    grammar: Some(|| tree_sitter_cpp::LANGUAGE.into()),
    classify,
    sibling_attribute: None,
    comments: COMMENTS,
    imports: &["preproc_include", "using_declaration"],
    keywords: &[
        "static",
        "extern",
        "inline",
        "typedef",
        "struct",
        "union",
        "enum",
        "const",
        "volatile",
        "register",
        "unsigned",
        "signed",
        "void",
        "int",
        "char",
        "long",
        "short",
        "float",
        "double",
        "bool",
        "class",
        "namespace",
        "template",
        "virtual",
        "explicit",
        "constexpr",
        "consteval",
        "constinit",
        "mutable",
        "thread_local",
        "friend",
        "using",
        "operator",
        "typename",
    ],
    attribute: is_attribute,
    probe,
    declarations: Some(Reader {
        read: crate::c_items::parse_cpp,
        name: None,
        own_start: Some(crate::c_items::own_start),
    }),
    skeleton: Some(SkeletonLexer {
        skippable: |src| skeleton_c::skippable(Dialect::Cpp, src),
        mark: Some(skeleton_c::mark),
        any_error: false,
    }),
};

/// `[[nodiscard]]`, `__attribute__((…))`, `__declspec(…)`.
fn is_attribute(t: &[u8]) -> bool {
    t.starts_with(b"[[") || t.starts_with(b"__attribute__") || t.starts_with(b"__declspec")
}

fn probe(site: ProbeSite) -> &'static str {
    use SymbolKind as K;
    match (site.kind, site.parent) {
        // An enumerator not at its `enum` keyword (`opened_on_first_line`), or in one.
        (K::EnumMember, _) if site.grouped => "LEAN_CTX_PROBE,",
        (_, Some(K::Enum)) => "LEAN_CTX_PROBE,",
        // A member list: a class's, a struct's, or the anonymous struct of a field or
        // variable (`struct {…} pos;`).
        (_, Some(K::Class | K::Struct | K::Union | K::Field | K::Variable)) => {
            "int lean_ctx_probe;"
        }
        _ => "void lean_ctx_probe(void) {}",
    }
}

fn classify<'t>(node: Node<'t>, src: &[u8], parent: Option<SymbolKind>) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let member = matches!(parent, Some(K::Class | K::Struct | K::Union));
    match node.kind() {
        "function_definition" if misread_type(node).is_some() => {
            // `struct LEVELDB_EXPORT Options {…};`
            let (specifier, name) = misread_type(node).unwrap_or((node, node));
            vec![Visit::Symbol(Box::new(Def {
                end: semicolon_after(node),
                ..Def::new(type_kind(specifier), node, name, src).body(field(node, "body"))
            }))]
        }
        "function_definition" => {
            let Some(name) = field(node, "declarator").and_then(|d| declared(d, src)) else {
                return vec![Visit::Skip];
            };
            let kind = function_kind(node, &name, member, src);
            let mut cursor = node.walk();
            // A constructor's signature stops before its initializers.
            let sig_end = node.named_children(&mut cursor).find(|c| {
                matches!(
                    c.kind(),
                    "field_initializer_list"
                        | "default_method_clause"
                        | "delete_method_clause"
                        | "compound_statement"
                        | "try_statement"
                )
            });
            vec![name.symbol(kind, outer(node), src, |d| d.sig_end(sig_end))]
        }
        "declaration" | "field_declaration" | "type_definition" => {
            declaration(node, src, parent, member)
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            // A type defined alone (`struct tag {…};`); an anonymous one's members
            // belong to what holds it (C11's anonymous unions, `enum { A, B };`).
            let Some(body) = field(node, "body") else {
                return vec![Visit::Skip];
            };
            match field(node, "name").and_then(|n| declared(n, src)) {
                Some(name) => vec![name.symbol(type_kind(node), outer(node), src, |d| Def {
                    end: semicolon_after(node),
                    ..d.body(Some(body))
                })],
                None => vec![Visit::Descend],
            }
        }
        "enumerator" => {
            let Some(n) = field(node, "name") else {
                return vec![Visit::Skip];
            };
            let def = Def::new(K::EnumMember, node, n, src);
            // Members of an anonymous enum are listed loose, where the enum is (an
            // enum, variable or field named by it holds them).
            let shared = match parent {
                Some(K::Enum | K::Variable | K::Field) => None,
                _ => opened_on_first_line(node),
            };
            let def = match shared {
                Some((range, end)) => Def {
                    node: range,
                    end,
                    signature: Some(signature(&src[node.byte_range()])),
                    ..def
                },
                None => def,
            };
            vec![Visit::Symbol(Box::new(def))]
        }
        "preproc_def" | "preproc_function_def" => match field(node, "name") {
            Some(n) if !include_guard(node, n, src) => vec![Visit::Symbol(Box::new(
                Def::new(K::Macro, node, n, src).sig_end(field(node, "value")),
            ))],
            _ => vec![Visit::Skip],
        },
        "namespace_definition" => match field(node, "name").and_then(|n| declared(n, src)) {
            Some(name) => vec![name.symbol(K::Module, node, src, |d| d.body(field(node, "body")))],
            None => vec![Visit::Descend],
        },
        "alias_declaration" => match field(node, "name").and_then(|n| declared(n, src)) {
            Some(name) => {
                let semicolon = token(node, &[";"]);
                vec![name.symbol(K::TypeAlias, outer(node), src, |d| d.sig_end(semicolon))]
            }
            None => vec![Visit::Skip],
        },
        "template_declaration"
        | "linkage_specification"
        | "declaration_list"
        | "field_declaration_list"
        | "enumerator_list"
        | "preproc_if"
        | "preproc_ifdef"
        | "preproc_else"
        | "preproc_elif"
        | "preproc_elifdef" => vec![Visit::Descend],
        _ => vec![Visit::Skip],
    }
}

/// A declaration's symbols: the type it defines with a body, if any, and one per
/// declarator (a typedef's names, variables, fields, prototypes).
fn declaration<'t>(
    node: Node<'t>,
    src: &[u8],
    parent: Option<SymbolKind>,
    member: bool,
) -> Vec<Visit<'t>> {
    use SymbolKind as K;
    let range = outer(node);
    let mut cursor = node.walk();
    let declarators: Vec<Node<'t>> = node
        .children_by_field_name("declarator", &mut cursor)
        .collect();
    let defined = field(node, "type").filter(|t| {
        matches!(
            t.kind(),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
        ) && field(*t, "body").is_some()
    });
    let body = defined.and_then(|t| field(t, "body"));
    let tag = defined
        .and_then(|t| field(t, "name"))
        .and_then(|n| declared(n, src));
    if defined.is_some() && tag.is_none() && declarators.is_empty() {
        return vec![Visit::Descend];
    }
    // What every name's signature starts with: up to the type's body or the first
    // declarator (`typedef struct node`, `static const int`).
    let core = decl::core_start(range);
    let head_end = body
        .or(declarators.first().copied())
        .map_or(core, |n| n.start_byte());
    let head = &src[core.min(head_end)..head_end];
    let one_of = |declarator: Node<'_>| {
        let own = &src[declarator.start_byte()
            ..field(declarator, "value").map_or(declarator.end_byte(), |v| v.start_byte())];
        signature(&decl::strip_comments(&COMMENTS, &[head, own].concat()))
    };
    let mut out = Vec::new();
    if let (Some(t), Some(tag)) = (defined, &tag) {
        out.push(
            tag.clone()
                .symbol(type_kind(t), range, src, |d| d.body(body)),
        );
    }
    let typedef = node.kind() == "type_definition";
    for (i, &declarator) in declarators.iter().enumerate() {
        let Some(name) = declared(declarator, src) else {
            continue;
        };
        // `typedef struct foo {…} foo;`: one name, the struct's.
        if typedef && tag.as_ref().is_some_and(|t| t.text == name.text) {
            continue;
        }
        // An anonymous type's body goes with the first name it declares.
        let anonymous = (i == 0 && defined.is_some() && tag.is_none()).then_some(body);
        let kind = match (typedef, anonymous) {
            (true, Some(_)) => type_kind(defined.unwrap_or(node)),
            (true, None) => K::TypeAlias,
            _ if name.function && node.kind() == "field_declaration" => K::Method,
            _ if name.function => function_kind(node, &name, member, src),
            _ if node.kind() == "field_declaration"
                || member
                || name.qualifier.is_some()
                || parent == Some(K::Field) =>
            {
                K::Field
            }
            _ if constant(node, declarator, src) => K::Constant,
            _ => K::Variable,
        };
        let sig = one_of(declarator);
        out.push(name.symbol(kind, range, src, |d| Def {
            signature: Some(sig),
            ..d.body(anonymous.flatten())
        }));
    }
    out
}

/// A name a declarator declares: its node, its text, the scope written before it
/// (`Foo::bar`: `Foo`), and whether it declares a function (not a pointer to one).
#[derive(Clone)]
struct Name<'t> {
    node: Node<'t>,
    text: String,
    qualifier: Option<String>,
    function: bool,
}

impl<'t> Name<'t> {
    fn symbol(
        self,
        kind: SymbolKind,
        range: Node<'t>,
        src: &[u8],
        with: impl FnOnce(Def<'t>) -> Def<'t>,
    ) -> Visit<'t> {
        let def = Def {
            node: range,
            name: self.text,
            qualifier: self.qualifier,
            ..Def::new(kind, range, self.node, src)
        };
        Visit::Symbol(Box::new(with(def)))
    }
}

/// The name `declarator` declares, through pointers, references, arrays, function
/// declarators, parentheses and scopes.
fn declared<'t>(declarator: Node<'t>, src: &[u8]) -> Option<Name<'t>> {
    let mut at = declarator;
    let mut scopes: Vec<String> = Vec::new();
    loop {
        match at.kind() {
            "qualified_identifier" => {
                if let Some(scope) = field(at, "scope") {
                    scopes.push(scope_path(text(scope, src)));
                }
                at = field(at, "name")?;
            }
            "nested_namespace_specifier" => {
                let mut cursor = at.walk();
                let parts: Vec<Node<'t>> = at.named_children(&mut cursor).collect();
                let (last, outer) = parts.split_last()?;
                scopes.extend(outer.iter().map(|p| text(*p, src).to_string()));
                at = *last;
            }
            "template_function" | "template_type" => at = field(at, "name")?,
            "identifier"
            | "field_identifier"
            | "type_identifier"
            | "namespace_identifier"
            | "destructor_name"
            | "operator_name"
            | "operator_cast" => {
                // The declarator holding the name, past its scopes.
                let mut holder = at.parent();
                while let Some(h) = holder.filter(|h| {
                    matches!(
                        h.kind(),
                        "qualified_identifier" | "template_function" | "template_type"
                    )
                }) {
                    holder = h.parent();
                }
                let function = at.kind() == "operator_cast"
                    || holder.is_some_and(|h| h.kind() == "function_declarator");
                let text = match at.kind() {
                    // `operator bool`: the node runs on over its parameters.
                    "operator_cast" => format!(
                        "operator {}",
                        field(at, "type").map_or("", |t| text(t, src))
                    ),
                    _ => text(at, src)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                };
                let qualifier = (!scopes.is_empty()).then(|| scopes.join("/"));
                return Some(Name {
                    node: at,
                    text,
                    qualifier,
                    function,
                });
            }
            _ => {
                let mut cursor = at.walk();
                let inner = field(at, "declarator").or_else(|| {
                    at.named_children(&mut cursor).find(|c| {
                        c.kind().ends_with("declarator")
                            || matches!(c.kind(), "identifier" | "field_identifier")
                            || c.kind() == "qualified_identifier"
                    })
                });
                at = inner?;
            }
        }
    }
}

/// A scope as a name path: `ns::Foo<T>` is `ns/Foo`; C#'s `A.B` is `A/B`.
pub(super) fn scope_path(scope: &str) -> String {
    let mut out = String::with_capacity(scope.len());
    let mut depth = 0usize;
    for c in scope.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth > 0 || c.is_whitespace() => {}
            _ => out.push(c),
        }
    }
    out.replace("::", "/").replace('.', "/")
}

/// A function's kind: a member (declared in a class, struct or union, or defined out
/// of one as `Foo::bar`) is a method, a constructor when it has no type and the
/// type's name.
fn function_kind(node: Node<'_>, name: &Name<'_>, member: bool, src: &[u8]) -> SymbolKind {
    let owner = match &name.qualifier {
        Some(q) => Some(q.rsplit('/').next().unwrap_or(q).to_string()),
        None if member => enclosing_type(node, src),
        None => return SymbolKind::Function,
    };
    let untyped = field(node, "type").is_none() && name.node.kind() == "identifier";
    if untyped && owner.as_deref() == Some(name.text.as_str()) {
        SymbolKind::Constructor
    } else {
        SymbolKind::Method
    }
}

/// The name of the class, struct or union whose member list holds `node`.
fn enclosing_type(node: Node<'_>, src: &[u8]) -> Option<String> {
    let mut at = node.parent();
    while let Some(n) = at {
        let holder = n.parent();
        if n.kind() == "field_declaration_list" {
            let name = holder.and_then(|t| field(t, "name"))?;
            return declared(name, src).map(|n| n.text);
        }
        if let Some((_, name)) = holder.and_then(misread_type) {
            return Some(text(name, src).to_string());
        }
        at = holder;
    }
    None
}

/// A type the C++ grammar reads as a function: an export macro between `struct` and
/// the name (`struct LEVELDB_EXPORT Options {…};`, leveldb 1.23) makes a function of
/// type `struct LEVELDB_EXPORT` named `Options`, its members a body. The specifier
/// and the name.
fn misread_type(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    if node.kind() != "function_definition" {
        return None;
    }
    let specifier = field(node, "type").filter(|t| {
        matches!(
            t.kind(),
            "struct_specifier" | "class_specifier" | "union_specifier"
        ) && field(*t, "body").is_none()
    })?;
    let name = field(node, "declarator").filter(|d| d.kind() == "identifier")?;
    Some((specifier, name))
}

fn type_kind(specifier: Node<'_>) -> SymbolKind {
    match specifier.kind() {
        "union_specifier" => SymbolKind::Union,
        "enum_specifier" => SymbolKind::Enum,
        "class_specifier" => SymbolKind::Class,
        _ => SymbolKind::Struct,
    }
}

/// Whether the object `declarator` declares is itself `const` or `constexpr`: the
/// pointer nearest its name is `* const`, or, without one, the declaration is.
fn constant(declaration: Node<'_>, declarator: Node<'_>, src: &[u8]) -> bool {
    let qualified = |n: Node<'_>, words: &[&str]| {
        let mut cursor = n.walk();
        n.named_children(&mut cursor)
            .any(|c| c.kind() == "type_qualifier" && words.contains(&text(c, src)))
    };
    let mut at = Some(declarator);
    let mut pointer = None;
    while let Some(n) = at {
        match n.kind() {
            "pointer_declarator" => pointer = Some(n),
            "reference_declarator" | "function_declarator" => return false,
            _ => {}
        }
        let mut cursor = n.walk();
        at = field(n, "declarator").or_else(|| {
            n.named_children(&mut cursor)
                .find(|c| c.kind().ends_with("declarator"))
        });
    }
    match pointer {
        Some(p) => qualified(p, &["const"]),
        None => qualified(declaration, &["const", "constexpr"]),
    }
}

/// `#ifndef X_H` / `#define X_H`: a header's guard, not a macro anyone uses.
fn include_guard(node: Node<'_>, name: Node<'_>, src: &[u8]) -> bool {
    node.kind() == "preproc_def"
        && field(node, "value").is_none()
        && node.parent().is_some_and(|p| {
            p.kind() == "preproc_ifdef"
                && has_child(p, "#ifndef")
                && field(p, "name").is_some_and(|n| text(n, src) == text(name, src))
        })
}

/// The declaration of the anonymous enum that holds `enumerator`, and where it ends,
/// when its list opens on the line of its first enumerator (`enum { kMaxHeight = 12
/// };`, leveldb's class constants): insertion before such a member lands on that
/// line, outside the list, so its members are names of one declaration, sharing its
/// range (`decl.rs`), as `int a, b;` does.
fn opened_on_first_line(enumerator: Node<'_>) -> Option<(Node<'_>, Option<usize>)> {
    let mut list = enumerator.parent()?;
    while list.kind() != "enumerator_list" {
        list = list.parent()?;
    }
    let specifier = list.parent()?;
    let mut cursor = list.walk();
    let first = list
        .named_children(&mut cursor)
        .find(|c| c.kind() == "enumerator")?;
    if first.start_position().row != list.start_position().row {
        return None;
    }
    Some(match specifier.parent() {
        Some(d) if matches!(d.kind(), "declaration" | "field_declaration") => (outer(d), None),
        _ => (outer(specifier), semicolon_after(specifier)),
    })
}

/// Past the `;` the grammar leaves after a type defined alone (`struct tag {…};`).
fn semicolon_after(node: Node<'_>) -> Option<usize> {
    node.next_sibling()
        .filter(|s| s.kind() == ";")
        .map(|s| s.end_byte())
}

/// The range of what `node` declares: with the `template <…>` before it, and a
/// braceless `extern "C"`.
fn outer(node: Node<'_>) -> Node<'_> {
    let mut at = node;
    while let Some(p) = at.parent().filter(|p| {
        p.kind() == "template_declaration"
            || (p.kind() == "linkage_specification" && field(*p, "body") == Some(at))
    }) {
        at = p;
    }
    at
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::{Lang, tests::check};

    #[test]
    fn c_functions_prototypes_structs_typedefs_enums_and_macros() {
        check(
            Lang::C,
            r#"#ifndef UV_H
#define UV_H
#include <stdio.h>

#define UV_VERSION 44
#define UV_MAX(a, b) ((a) > (b) ? (a) : (b))

/** Adds. */
static int add(int a, int b) { int local = a; return local + b; }

/// Declared here, defined elsewhere.
int uv_run(uv_loop_t *loop, int mode);
__attribute__((noreturn)) void uv_fatal(const char *msg);

static inline void *
uv_ptr(void) { return 0; }

int counter, *cursor = 0;
static const int kLimit = 8;
const char *names[] = {"a"};

typedef struct {
  int x;
  int y;
} point_t;

typedef struct node {
  struct node *next;
  int (*visit)(struct node *);
  unsigned used : 1, dirty : 1;
  union {
    int i;
    float f;
  };
} node_t, *node_p;

typedef struct stream stream;
typedef int (*uv_cb)(int status);

struct uv_loop_s {
  void *data;
  struct {
    unsigned count;
  } active;
};

enum uv_mode {
  UV_RUN_DEFAULT = 0,
  UV_RUN_ONCE,
};

enum {
  UV_ANON_A,
  UV_ANON_B
};

typedef enum { UV_OK, UV_ERR } uv_status;

#ifdef _WIN32
void uv_win_init(void) {}
#else
void uv_unix_init(void) {}
#endif

#endif
"#,
            expect![[r#"
                macro UV_VERSION 5:0-5:21 name@5:8 | #define UV_VERSION
                macro UV_MAX 6:0-6:44 name@6:8 | #define UV_MAX(a, b)
                function add 9:0-9:65 name@9:11 | static int add(int a, int b)
                function uv_run 12:0-12:38 name@12:4 | int uv_run(uv_loop_t *loop, int mode)
                function uv_fatal 13:0-13:57 name@13:31 | void uv_fatal(const char *msg)
                function uv_ptr 15:0-16:26 name@16:0 | static inline void * uv_ptr(void)
                variable counter 18:0-18:25 name@18:4 | int counter
                variable cursor 18:0-18:25 name@18:14 | int *cursor
                constant kLimit 19:0-19:28 name@19:17 | static const int kLimit
                variable names 20:0-20:28 name@20:12 | const char *names[]
                struct point_t 22:0-25:10 name@25:2 | typedef struct point_t
                  field point_t/x 23:2-23:8 name@23:6 | int x
                  field point_t/y 24:2-24:8 name@24:6 | int y
                struct node 27:0-35:18 name@27:15 | typedef struct node
                  field node/next 28:2-28:20 name@28:15 | struct node *next
                  field node/visit 29:2-29:30 name@29:8 | int (*visit)(struct node *)
                  field node/used 30:2-30:31 name@30:11 | unsigned used
                  field node/dirty 30:2-30:31 name@30:21 | unsigned dirty
                  field node/i 32:4-32:10 name@32:8 | int i
                  field node/f 33:4-33:12 name@33:10 | float f
                type_alias node_t 27:0-35:18 name@35:2 | typedef struct node node_t
                type_alias node_p 27:0-35:18 name@35:11 | typedef struct node *node_p
                type_alias stream 37:0-37:29 name@37:22 | typedef struct stream stream
                type_alias uv_cb 38:0-38:33 name@38:14 | typedef int (*uv_cb)(int status)
                struct uv_loop_s 40:0-45:2 name@40:7 | struct uv_loop_s
                  field uv_loop_s/data 41:2-41:13 name@41:8 | void *data
                  field uv_loop_s/active 42:2-44:11 name@44:4 | struct active
                    field uv_loop_s/active/count 43:4-43:19 name@43:13 | unsigned count
                enum uv_mode 47:0-50:2 name@47:5 | enum uv_mode
                  enum_member uv_mode/UV_RUN_DEFAULT 48:2-48:20 name@48:2 | UV_RUN_DEFAULT = 0
                  enum_member uv_mode/UV_RUN_ONCE 49:2-49:13 name@49:2 | UV_RUN_ONCE
                enum_member UV_ANON_A 53:2-53:11 name@53:2 | UV_ANON_A
                enum_member UV_ANON_B 54:2-54:11 name@54:2 | UV_ANON_B
                enum uv_status 57:0-57:41 name@57:31 | typedef enum uv_status
                  enum_member uv_status/UV_OK 57:15-57:20 name@57:15 | UV_OK
                  enum_member uv_status/UV_ERR 57:22-57:28 name@57:22 | UV_ERR
                function uv_win_init 60:0-60:25 name@60:5 | void uv_win_init(void)
                function uv_unix_init 62:0-62:26 name@62:5 | void uv_unix_init(void)
            "#]],
        );
    }

    #[test]
    fn cpp_namespaces_classes_templates_and_out_of_class_methods() {
        check(
            Lang::Cpp,
            r#"#include <string>
using std::string;

namespace leveldb {

/// A slice of bytes.
class Slice {
 public:
  Slice();
  explicit Slice(const char* d) : data_(d) {}
  virtual ~Slice() = default;
  [[nodiscard]] size_t size() const { return size_; }
  void clear();
  virtual int compare(const Slice& b) const = 0;
  Slice& operator=(const Slice&) = delete;
  operator bool() const;
  static constexpr int kMax = 3;
  enum class Mode { kFast, kSafe };
  enum { kMaxHeight = 12, kBranching = 4 };
  using Ptr = Slice*;
  template <typename T>
  T as() const;

 private:
  const char* data_;
  size_t size_, cap_;
};

void Slice::clear() { size_ = 0; }
Slice::Slice() : data_(""), size_(0) {}
Slice::operator bool() const { return size_ != 0; }

template <typename T>
T max(T a, T b) {
  return a > b ? a : b;
}

template <typename K>
struct Box {
  K key;
  void put(K k);
};

template <typename K>
void Box<K>::put(K k) { key = k; }

namespace {
int hidden_counter;
}

}  // namespace leveldb

namespace a::b {
constexpr int kDeep = 1;
}

extern "C" {
int c_api(void);
}

extern "C" int c_single(void);
typedef std::vector<int> IntVec;

struct LEVELDB_EXPORT Options {
  Options();
  const Comparator* comparator = nullptr;
};
"#,
            expect![[r#"
                module leveldb 4:0-51:1 name@4:10 | namespace leveldb
                  class leveldb/Slice 7:0-27:2 name@7:6 | class Slice
                    constructor leveldb/Slice/Slice 9:2-9:10 name@9:2 | Slice()
                    constructor leveldb/Slice/Slice[1] 10:2-10:45 name@10:11 | explicit Slice(const char* d)
                    method leveldb/Slice/~Slice 11:2-11:29 name@11:10 | virtual ~Slice()
                    method leveldb/Slice/size 12:2-12:53 name@12:23 | size_t size() const
                    method leveldb/Slice/clear 13:2-13:15 name@13:7 | void clear()
                    method leveldb/Slice/compare 14:2-14:48 name@14:14 | virtual int compare(const Slice& b) const
                    method leveldb/Slice/operator= 15:2-15:42 name@15:9 | Slice& operator=(const Slice&)
                    method leveldb/Slice/operator bool 16:2-16:24 name@16:2 | operator bool() const
                    field leveldb/Slice/kMax 17:2-17:32 name@17:23 | static constexpr int kMax
                    enum leveldb/Slice/Mode 18:2-18:35 name@18:13 | enum class Mode
                      enum_member leveldb/Slice/Mode/kFast 18:20-18:25 name@18:20 | kFast
                      enum_member leveldb/Slice/Mode/kSafe 18:27-18:32 name@18:27 | kSafe
                    enum_member leveldb/Slice/kMaxHeight 19:2-19:43 name@19:9 | kMaxHeight = 12
                    enum_member leveldb/Slice/kBranching 19:2-19:43 name@19:26 | kBranching = 4
                    type_alias leveldb/Slice/Ptr 20:2-20:21 name@20:8 | using Ptr = Slice*
                    method leveldb/Slice/as 21:2-22:15 name@22:4 | template <typename T> T as() const
                    field leveldb/Slice/data_ 25:2-25:20 name@25:14 | const char* data_
                    field leveldb/Slice/size_ 26:2-26:21 name@26:9 | size_t size_
                    field leveldb/Slice/cap_ 26:2-26:21 name@26:16 | size_t cap_
                  method leveldb/Slice/clear[1] 29:0-29:34 name@29:12 | void Slice::clear()
                  constructor leveldb/Slice/Slice[2] 30:0-30:39 name@30:7 | Slice::Slice()
                  method leveldb/Slice/operator bool[1] 31:0-31:51 name@31:7 | Slice::operator bool() const
                  function leveldb/max 33:0-36:1 name@34:2 | template <typename T> T max(T a, T b)
                  struct leveldb/Box 38:0-42:2 name@39:7 | template <typename K> struct Box
                    field leveldb/Box/key 40:2-40:8 name@40:4 | K key
                    method leveldb/Box/put 41:2-41:16 name@41:7 | void put(K k)
                  method leveldb/Box/put[1] 44:0-45:34 name@45:13 | template <typename K> void Box<K>::put(K k)
                  variable leveldb/hidden_counter 48:0-48:19 name@48:4 | int hidden_counter
                module a/b 53:0-55:1 name@53:13 | namespace a::b
                  constant a/b/kDeep 54:0-54:24 name@54:14 | constexpr int kDeep
                function c_api 58:0-58:16 name@58:4 | int c_api(void)
                function c_single 61:0-61:30 name@61:15 | extern "C" int c_single(void)
                type_alias IntVec 62:0-62:32 name@62:25 | typedef std::vector<int> IntVec
                struct Options 64:0-67:1 name@64:22 | struct LEVELDB_EXPORT Options
                  field Options/comparator 66:2-66:41 name@66:20 | const Comparator* comparator
            "#]],
        );
    }
}

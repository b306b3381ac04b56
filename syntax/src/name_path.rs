//! Name-path queries: how an agent's `Type/method` (or `Type::method`, `pkg.Type.method`)
//! addresses symbols, for symbol edits and symbol search alike.
//!
//! The rule (issue 16): a relative query (no leading separator) matches every symbol
//! whose name path ends with it, segment by segment, at any depth; a leading separator
//! anchors it at the top level. A segment without `[n]` matches every duplicate of
//! that name (`bar` matches `bar` and `bar[1]`, two overloads), one with `[n]` exactly
//! that one (`bar[0]` the first, stored as `bar`). There is deliberately no preference for an exact path over a deeper
//! match: a bare `run` that silently picked the top-level `run` over the method the
//! agent had just looked at rewrote the wrong code; an edit needs exactly one match,
//! and `/run` is how a caller says "the top-level one".
//!
//! Qualifiers: name paths are stored with `/`; a query may use `/`, `::` or `.`.
//! Some names hold `::` or `.` themselves (`impl fmt::Display for Foo`), so a query is
//! also tried split at `/` alone.

/// A parsed query; built once, matched against many symbols without allocating.
#[derive(Debug)]
pub struct NamePath {
    anchored: bool,
    /// Split at `/` only.
    slash: Vec<String>,
    /// Split at every qualifier, when that differs from `slash`.
    qualified: Option<Vec<String>>,
    /// The query without its anchor, for names that hold a separator themselves.
    raw: String,
    /// The query as written, for names that start with what reads as an anchor
    /// (R's `.onLoad`).
    whole: String,
    /// The names a matching symbol may have (its last segment without a `[n]`, in
    /// each reading): most symbols are rejected by one comparison with these, which
    /// keeps a lookup in a file of ten thousand symbols cheap.
    last_names: Vec<String>,
}

/// How a symbol matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// Every segment of its path (the whole path).
    Exact,
    /// The last segments of a deeper path.
    Suffix,
}

impl NamePath {
    pub fn parse(query: &str) -> NamePath {
        let query = query.trim();
        // A first or last segment of operator characters is a name (Scala's `::`,
        // `+:`), not a qualifier to trim.
        let first_op = segments(query).first().is_some_and(|s| operator(s));
        let anchored = query.starts_with('/')
            || (!first_op && ["::", "."].iter().any(|s| query.starts_with(s)));
        let mut raw = query.trim_start_matches('/');
        if !segments(raw).first().is_some_and(|s| operator(s)) {
            raw = raw.trim_start_matches(['/', ':', '.']);
        }
        if segments(raw).last().is_some_and(|s| s.is_empty()) {
            raw = raw.trim_end_matches('/');
        }
        if !segments(raw).last().is_some_and(|s| operator(s)) {
            raw = raw.trim_end_matches(['/', ':', '.']);
        }
        let split = |qualifiers: bool| -> Vec<String> {
            segments(raw)
                .into_iter()
                .flat_map(|seg| match qualifiers && !operator(seg) {
                    true => seg
                        .replace("::", "/")
                        .replace('.', "/")
                        .split('/')
                        .map(str::to_string)
                        .collect(),
                    false => vec![seg.to_string()],
                })
                .filter(|s| !s.is_empty())
                .collect()
        };
        let slash = split(false);
        let all = split(true);
        let last_names = [&slash, &all]
            .iter()
            .filter_map(|segs| segs.last())
            .map(|seg| seg[..duplicate_index(seg).unwrap_or(seg.len())].to_string())
            .collect();
        NamePath {
            anchored,
            qualified: (all != slash).then_some(all),
            slash,
            raw: raw.to_string(),
            whole: query.to_string(),
            last_names,
        }
    }

    /// Whether the query names a path (has a qualifier or an anchor), rather than a
    /// bare name.
    pub fn is_qualified(&self) -> bool {
        self.anchored || self.slash.len() > 1 || self.qualified.is_some()
    }

    /// The query's segments joined with `/`, the stored form (the fully split form).
    pub fn joined(&self) -> String {
        self.qualified.as_ref().unwrap_or(&self.slash).join("/")
    }

    /// How many segments the fully split query has.
    pub fn segments(&self) -> usize {
        self.qualified.as_ref().unwrap_or(&self.slash).len()
    }

    pub fn anchored(&self) -> bool {
        self.anchored
    }

    /// How the symbol with `path` (its stored name path) and `name` matches, if it
    /// does.
    pub fn matches(&self, path: &str, name: &str) -> Option<Match> {
        // A path's last segment is its symbol's name, `[n]` added for a duplicate,
        // unless the name holds a `/` itself; a match needs that segment equal to the
        // query's last (`segment_eq`) or the whole name equal to the query.
        let could = name == self.raw
            || name == self.whole
            || name.contains('/')
            || self.last_names.iter().any(|n| n == name);
        if self.slash.is_empty() || !could {
            return None;
        }
        let found = segments_match(&self.slash, path, self.anchored).or_else(|| {
            self.qualified
                .as_ref()
                .and_then(|q| segments_match(q, path, self.anchored))
        });
        found.or_else(|| {
            // A name holding a `/` of its own, or starting with a `.`.
            ((name == self.raw || name == self.whole) && (!self.anchored || path == name))
                .then_some(if path == name {
                    Match::Exact
                } else {
                    Match::Suffix
                })
        })
    }
}

impl NamePath {
    /// `path` (a stored name path) with `[0]` on every segment that has no index: the
    /// address of the first of duplicates at every level (`inner[0]/do_alloc` when a
    /// file has two `mod inner`s, each with a `do_alloc`).
    pub fn first_of_duplicates(path: &str) -> String {
        segments(path)
            .into_iter()
            .map(|seg| match duplicate_index(seg) {
                Some(_) => seg.to_string(),
                None => format!("{seg}[0]"),
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// A relative query qualified beyond the symbol's name path by where its file
    /// lies: `pkg.mod.Class.method` for `Class/method` in `pkg/mod.py`, or
    /// `com.x.Calc.add` for `Calc/add` in `com/x/Calc.java` (a package is the
    /// directory). `file` is root-relative.
    pub fn matches_in_file(&self, path: &str, file: &str) -> bool {
        if self.anchored {
            return false;
        }
        let module = file.rsplit_once('.').map_or(file, |(m, _)| m);
        let dir = module.rsplit_once('/').map_or("", |(d, _)| d);
        let query = self.qualified.as_ref().unwrap_or(&self.slash);
        [module, dir].into_iter().any(|outer| {
            let segs = segments(path)
                .into_iter()
                .rev()
                .chain(outer.rsplit('/').filter(|s| !s.is_empty()));
            segments_from_end(query, segs, false).is_some()
        })
    }
}

/// `query` against the `/`-separated `path`, from the end.
fn segments_match(query: &[String], path: &str, anchored: bool) -> Option<Match> {
    segments_from_end(query, segments(path).into_iter().rev(), anchored)
}

fn segments_from_end<'p>(
    query: &[String],
    mut segs: impl Iterator<Item = &'p str>,
    anchored: bool,
) -> Option<Match> {
    for q in query.iter().rev() {
        if !segment_eq(q, segs.next()?) {
            return None;
        }
    }
    match segs.next() {
        None => Some(Match::Exact),
        Some(_) if anchored => None,
        Some(_) => Some(Match::Suffix),
    }
}

/// `q` names `seg`: equal, or `q` has no `[n]` and `seg` is `q[n]`.
/// `[0]` names the first of duplicates, which is stored without an index.
fn segment_eq(q: &str, seg: &str) -> bool {
    q == seg
        || (duplicate_index(q).is_none()
            && duplicate_index(seg) == Some(q.len())
            && seg.starts_with(q))
        || (duplicate_index(seg).is_none() && q.strip_suffix("[0]") == Some(seg))
}

/// `path`'s segments at `/`. A name that starts with `/` (Scala's and Elixir's
/// division operator, Scala's `/:`) follows its separator: `int//`, `List//:[1]`,
/// `Kernel///`.
fn segments(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start <= path.len() {
        // Past the slashes a name starts with (`//`, Elixir's step operator).
        let name = match start {
            0 => 0,
            _ => start + path[start..].bytes().take_while(|b| *b == b'/').count(),
        };
        let end = path[name..].find('/').map_or(path.len(), |i| name + i);
        out.push(&path[start..end]);
        start = end + 1;
    }
    out
}

/// Whether `seg` (a `[n]` index aside) is made of operator characters alone: a
/// name as written, never split at a qualifier (Scala's `::`, `+:`).
fn operator(seg: &str) -> bool {
    let name = &seg[..duplicate_index(seg).unwrap_or(seg.len())];
    !name.is_empty() && !name.chars().any(|c| c.is_alphanumeric() || c == '_')
}

/// Where a trailing `[n]` (digits) starts in `seg`, if it has one after a name.
fn duplicate_index(seg: &str) -> Option<usize> {
    let inner = seg.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    let digits = &inner[open + 1..];
    (open > 0 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(open)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(query: &str, path: &str, name: &str) -> Option<Match> {
        NamePath::parse(query).matches(path, name)
    }

    #[test]
    fn zero_names_the_first_of_duplicates_which_is_stored_without_an_index() {
        assert_eq!(check("Calc/add[0]", "Calc/add", "add"), Some(Match::Exact));
        assert_eq!(check("Calc/add[0]", "Calc/add[1]", "add"), None);
        assert_eq!(check("add[1]", "Calc/add", "add"), None);
    }

    #[test]
    fn relative_queries_match_at_any_depth_and_anchored_ones_at_the_top() {
        assert_eq!(check("run", "run", "run"), Some(Match::Exact));
        assert_eq!(check("run", "A/run", "run"), Some(Match::Suffix));
        assert_eq!(check("run", "A/B/run[2]", "run"), Some(Match::Suffix));
        assert_eq!(check("/run", "run", "run"), Some(Match::Exact));
        assert_eq!(check("/run", "A/run", "run"), None);
        assert_eq!(check("A/run", "m/A/run", "run"), Some(Match::Suffix));
        assert_eq!(check("/A/run", "m/A/run", "run"), None);
        assert_eq!(check("un", "run", "run"), None);
        assert_eq!(check("A/run", "XA/run", "run"), None);
        assert_eq!(check("", "run", "run"), None);
    }

    #[test]
    fn a_segment_without_an_index_names_every_duplicate_and_one_with_an_index_one() {
        assert_eq!(check("Foo/bar", "Foo/bar[1]", "bar"), Some(Match::Exact));
        assert_eq!(check("Foo/bar[1]", "Foo/bar[1]", "bar"), Some(Match::Exact));
        assert_eq!(check("Foo/bar[1]", "Foo/bar", "bar"), None);
        assert_eq!(check("Foo/bar[1]", "Foo/bar[2]", "bar"), None);
        assert_eq!(check("Foo/fmt", "Foo[1]/fmt", "fmt"), Some(Match::Exact));
        // Brackets that are not a duplicate index are part of the name.
        assert_eq!(check("x", "x[]", "x[]"), None);
    }

    #[test]
    fn qualifiers_are_slash_double_colon_and_dot_and_a_name_may_hold_them() {
        for q in ["Point::new", "Point.new", "Point/new"] {
            assert_eq!(check(q, "Point/new", "new"), Some(Match::Exact), "{q}");
        }
        assert_eq!(
            check("pkg.Class.method", "pkg/Class/method", "method"),
            Some(Match::Exact)
        );
        assert_eq!(check("::new", "Point/new", "new"), None);
        assert_eq!(check(".Point", "Point", "Point"), Some(Match::Exact));
        let imp = "impl fmt::Display for Foo";
        assert_eq!(check(imp, imp, imp), Some(Match::Exact));
        assert!(NamePath::parse("Point::new").is_qualified());
        assert!(NamePath::parse("/new").is_qualified());
        assert!(!NamePath::parse("new").is_qualified());
        assert_eq!(NamePath::parse("a::b.c/d").joined(), "a/b/c/d");
        assert_eq!(check("Point::", "Point", "Point"), Some(Match::Exact));
    }

    #[test]
    fn a_name_starting_with_a_dot_is_named_whole() {
        // R's hooks and internals (dplyr's `.onLoad`, `...length2`).
        for name in [".onLoad", "...length2"] {
            assert_eq!(check(name, name, name), Some(Match::Exact), "{name}");
        }
    }

    #[test]
    fn a_segment_of_operator_characters_is_a_name_not_a_qualifier() {
        for (path, name) in [("List/::", "::"), ("Chain/+:", "+:"), (":<:", ":<:")] {
            assert_eq!(check(path, path, name), Some(Match::Exact), "{path}");
        }
        assert_eq!(check("List/::", "List", "List"), None);
        assert_eq!(
            check("List/:::[1]", "List/:::[1]", ":::"),
            Some(Match::Exact)
        );
        assert_eq!(check("/::", "::", "::"), Some(Match::Exact));
        assert_eq!(check("/::", "List/::", "::"), None);
        assert_eq!(check("::", "List/::", "::"), Some(Match::Suffix));
        for (path, name) in [("int//", "/"), ("List//:[1]", "/:"), ("Kernel///", "//")] {
            assert_eq!(check(path, path, name), Some(Match::Exact), "{path}");
        }
        assert_eq!(check("int//", "int", "int"), None);
        assert_eq!(NamePath::first_of_duplicates("int//"), "int[0]//[0]");
    }

    #[test]
    fn the_first_of_duplicates_at_every_level_is_addressed_with_zero_at_every_level() {
        let first = NamePath::first_of_duplicates("inner/do_alloc");
        assert_eq!(first, "inner[0]/do_alloc[0]");
        assert_eq!(
            check(&first, "inner/do_alloc", "do_alloc"),
            Some(Match::Exact)
        );
        assert_eq!(check(&first, "inner[1]/do_alloc", "do_alloc"), None);
        assert_eq!(
            NamePath::first_of_duplicates("imp[1]/RngImp"),
            "imp[1]/RngImp[0]"
        );
    }

    #[test]
    fn a_query_may_be_qualified_by_the_files_module_or_package() {
        let q = NamePath::parse("pkg.mod.Class.method");
        assert_eq!(q.matches("Class/method", "method"), None);
        assert!(q.matches_in_file("Class/method", "src/pkg/mod.py"));
        assert!(!q.matches_in_file("Class/method", "src/pkg/other.py"));
        let q = NamePath::parse("com.x.Calc.add");
        assert!(q.matches_in_file("Calc/add[1]", "src/com/x/Calc.java"));
        assert!(!NamePath::parse("/mod.Class").matches_in_file("Class", "mod.py"));
    }
}

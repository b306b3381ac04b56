//! A search pattern as a query over the text index's trigrams: which trigrams every
//! line it matches must contain, as an and/or tree ([`Query`]). The analysis is Russ
//! Cox's for Google Code Search (regular expression matching with a trigram index):
//! per node of the pattern's syntax tree, whether it can match empty, the set of
//! strings it matches exactly when that set is small, else the sets its matches can
//! start and end with, and the trigram query its matches satisfy; concatenations
//! cross the sets, alternations unite them, and a set grown too large is turned into
//! trigrams and cut down to its first (or last) two bytes.
//!
//! **Invariant:** the query is a necessary condition. Every file with a line the
//! pattern matches satisfies it; where the analysis cannot tell (a pattern this
//! parser refuses, a class too large to spell out) it asks less, down to
//! [`Query::All`], never more. The search verifies every candidate with the regex
//! engine (`backing/grep.rs`), so a weaker query costs time, never an answer.
//!
//! Strings are folded as the index folds them (ASCII letters to lower case,
//! `trigrams::fold`): a case-sensitive pattern asks for the folded trigrams too,
//! which a few more files satisfy, and a case-insensitive one needs no variants for
//! ASCII letters. Other case variants (`ſ` for `s`, `K` for `k`) come from the
//! parser's own case folding as class members, and each is spelled out.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::trigrams::{fold, trigram};

/// A condition on a file's trigrams.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Query {
    /// Every file.
    All,
    /// Files holding this (folded) trigram.
    Tri(u32),
    And(Vec<Query>),
    Or(Vec<Query>),
}

impl Query {
    fn and(self, other: Query) -> Query {
        match (self, other) {
            (Query::All, q) | (q, Query::All) => q,
            (Query::And(mut a), Query::And(b)) => {
                a.extend(b);
                Query::And(a)
            }
            (Query::And(mut a), q) | (q, Query::And(mut a)) => {
                a.push(q);
                Query::And(a)
            }
            (a, b) if a == b => a,
            (a, b) => Query::And(vec![a, b]),
        }
    }

    fn or(self, other: Query) -> Query {
        match (self, other) {
            (Query::All, _) | (_, Query::All) => Query::All,
            (Query::Or(mut a), Query::Or(b)) => {
                a.extend(b);
                Query::Or(a)
            }
            (Query::Or(mut a), q) | (q, Query::Or(mut a)) => {
                a.push(q);
                Query::Or(a)
            }
            (a, b) if a == b => a,
            (a, b) => Query::Or(vec![a, b]),
        }
    }

    /// The same condition with each and/or's terms sorted and once each (the
    /// analysis ands some trigrams in more than once), a single term standing alone.
    fn normalized(self) -> Query {
        let terms = |terms: Vec<Query>| {
            let mut terms: Vec<Query> = terms.into_iter().map(Query::normalized).collect();
            terms.sort_unstable();
            terms.dedup();
            terms
        };
        match self {
            Query::And(all) => match terms(all) {
                mut one if one.len() == 1 => one.remove(0),
                all => Query::And(all),
            },
            Query::Or(any) => match terms(any) {
                mut one if one.len() == 1 => one.remove(0),
                any => Query::Or(any),
            },
            q => q,
        }
    }

    /// And the trigrams of `set`: a file must hold every trigram of one of its
    /// strings. Nothing is asked when a string is shorter than a trigram (it says
    /// nothing) or the set is empty (a pattern matching nothing: left to the regex).
    fn and_trigrams(self, set: &Set) -> Query {
        if set.is_empty() || set.min_len() < 3 {
            return self;
        }
        let any = set
            .0
            .iter()
            .map(|s| {
                s.windows(3)
                    .map(|w| Query::Tri(trigram(w[0], w[1], w[2])))
                    .fold(Query::All, Query::and)
            })
            .reduce(Query::or)
            .unwrap_or(Query::All);
        self.and(any)
    }
}

/// Most strings an exact set holds before it is turned into trigrams.
const MAX_EXACT: usize = 7;
/// Most strings a prefix or suffix set holds.
const MAX_SET: usize = 20;
/// Most characters a class is spelled out as; a larger one is any character.
const MAX_CLASS: usize = 100;

/// A set of folded byte strings, sorted, without duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Set(Vec<Vec<u8>>);

impl Set {
    fn empty_string() -> Set {
        Set(vec![Vec::new()])
    }

    fn of(mut strings: Vec<Vec<u8>>) -> Set {
        strings.sort_unstable();
        strings.dedup();
        Set(strings)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    fn min_len(&self) -> usize {
        self.0.iter().map(Vec::len).min().unwrap_or(0)
    }

    fn union(&self, other: &Set) -> Set {
        Set::of(self.0.iter().chain(&other.0).cloned().collect())
    }

    /// Every string of `self` followed by every string of `other`.
    fn cross(&self, other: &Set) -> Set {
        Set::of(
            self.0
                .iter()
                .flat_map(|a| other.0.iter().map(move |b| [a.as_slice(), b].concat()))
                .collect(),
        )
    }
}

/// What is known of the matches of one node of the pattern.
#[derive(Clone, Debug)]
struct Info {
    can_empty: bool,
    /// All it matches, when that is a small set.
    exact: Option<Set>,
    /// What its matches start with, and end with (used where `exact` is `None`).
    prefix: Set,
    suffix: Set,
    /// What a file holding a match holds.
    query: Query,
}

impl Info {
    fn exactly(set: Set) -> Info {
        Info {
            can_empty: set.0.iter().any(Vec::is_empty),
            exact: Some(set),
            prefix: Set::default(),
            suffix: Set::default(),
            query: Query::All,
        }
    }

    /// Any one character (or a class too large to spell out).
    fn any_char() -> Info {
        Info {
            can_empty: false,
            exact: None,
            prefix: Set::empty_string(),
            suffix: Set::empty_string(),
            query: Query::All,
        }
    }

    /// Any string at all, the empty one included.
    fn anything() -> Info {
        Info {
            can_empty: true,
            ..Info::any_char()
        }
    }

    /// The exact set's trigrams into the query.
    fn add_exact(&mut self) {
        if let Some(exact) = &self.exact {
            self.query = std::mem::replace(&mut self.query, Query::All).and_trigrams(exact);
        }
    }

    /// An exact set grown too large (or long enough to say something) becomes
    /// trigrams and two-byte prefixes and suffixes; prefix and suffix sets are
    /// kept small the same way.
    fn simplify(&mut self, force: bool) {
        if let Some(exact) = &self.exact
            && (exact.len() > MAX_EXACT || (force && exact.min_len() >= 3) || exact.min_len() >= 4)
        {
            self.add_exact();
            let exact = self.exact.take().unwrap_or_default();
            let cut = |s: &Vec<u8>, start: bool| -> Vec<u8> {
                match (s.len() < 3, start) {
                    (true, _) => s.clone(),
                    (false, true) => s[..2].to_vec(),
                    (false, false) => s[s.len() - 2..].to_vec(),
                }
            };
            self.prefix = self
                .prefix
                .union(&Set::of(exact.0.iter().map(|s| cut(s, true)).collect()));
            self.suffix = self
                .suffix
                .union(&Set::of(exact.0.iter().map(|s| cut(s, false)).collect()));
        }
        if self.exact.is_none() {
            self.prefix = self.simplify_set(&self.prefix.clone(), true);
            self.suffix = self.simplify_set(&self.suffix.clone(), false);
        }
    }

    /// Ands a prefix (`start`) or suffix set's trigrams into the query, then keeps
    /// of each string its first (last) two bytes, then one, until the set is small.
    fn simplify_set(&mut self, set: &Set, start: bool) -> Set {
        self.query = std::mem::replace(&mut self.query, Query::All).and_trigrams(set);
        let mut set = set.clone();
        let mut keep = 2;
        loop {
            set = Set::of(
                set.0
                    .iter()
                    .map(|s| match (s.len() > keep, start) {
                        (false, _) => s.clone(),
                        (true, true) => s[..keep].to_vec(),
                        (true, false) => s[s.len() - keep..].to_vec(),
                    })
                    .collect(),
            );
            if set.len() <= MAX_SET || keep == 0 {
                return set;
            }
            keep -= 1;
        }
    }
}

/// The query every file with a match of `pattern` satisfies; [`Query::All`] when the
/// pattern does not parse here (the regex engine then judges it alone).
pub fn query(pattern: &str, regex: bool, case_insensitive: bool) -> Query {
    let escaped;
    let pattern = match regex {
        true => pattern,
        false => {
            escaped = regex_syntax::escape(pattern);
            &escaped
        }
    };
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
    else {
        return Query::All;
    };
    let mut info = analyze(&hir);
    info.simplify(true);
    info.add_exact();
    info.query.normalized()
}

fn analyze(hir: &Hir) -> Info {
    let mut info = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exactly(Set::empty_string()),
        HirKind::Literal(lit) => Info::exactly(Set(vec![lit.0.iter().map(|b| fold(*b)).collect()])),
        HirKind::Class(class) => class_info(class),
        HirKind::Capture(capture) => analyze(&capture.sub),
        HirKind::Repetition(rep) if rep.min == 0 => Info::anything(),
        // `x{n,}` holds at least one `x`: what `x` holds, not its exact strings.
        HirKind::Repetition(rep) => {
            let mut sub = analyze(&rep.sub);
            sub.add_exact();
            if let Some(exact) = sub.exact.take() {
                sub.prefix = exact.clone();
                sub.suffix = exact;
            }
            sub
        }
        HirKind::Concat(subs) => subs
            .iter()
            .map(analyze)
            .reduce(concat)
            .unwrap_or_else(|| Info::exactly(Set::empty_string())),
        HirKind::Alternation(subs) => subs
            .iter()
            .map(analyze)
            .reduce(alternate)
            .unwrap_or_else(|| Info::exactly(Set::default())),
    };
    info.simplify(false);
    info
}

/// A class spelled out as its (folded) characters, or any character if large.
fn class_info(class: &Class) -> Info {
    let mut strings = Vec::new();
    let mut count = 0usize;
    match class {
        Class::Unicode(class) => {
            for range in class.ranges() {
                count += range.end() as usize - range.start() as usize + 1;
                if count > MAX_CLASS {
                    return Info::any_char();
                }
                for c in range.start()..=range.end() {
                    let mut buf = [0; 4];
                    strings.push(c.encode_utf8(&mut buf).bytes().map(fold).collect());
                }
            }
        }
        Class::Bytes(class) => {
            for range in class.ranges() {
                count += usize::from(range.end() - range.start()) + 1;
                if count > MAX_CLASS {
                    return Info::any_char();
                }
                strings.extend((range.start()..=range.end()).map(|b| vec![fold(b)]));
            }
        }
    }
    Info::exactly(Set::of(strings))
}

fn concat(x: Info, y: Info) -> Info {
    let mut xy = Info {
        can_empty: x.can_empty && y.can_empty,
        exact: None,
        prefix: Set::default(),
        suffix: Set::default(),
        query: x.query.clone().and(y.query.clone()),
    };
    match (&x.exact, &y.exact) {
        (Some(a), Some(b)) => xy.exact = Some(a.cross(b)),
        _ => {
            xy.prefix = match &x.exact {
                Some(a) => a.cross(&y.prefix),
                None if x.can_empty => x.prefix.union(&y.prefix),
                None => x.prefix.clone(),
            };
            xy.suffix = match &y.exact {
                Some(b) => x.suffix.cross(b),
                None if y.can_empty => y.suffix.union(&x.suffix),
                None => y.suffix.clone(),
            };
        }
    }
    // Where neither side is exact, the strings across the seam are long enough to
    // hold a trigram that neither side's sets account for.
    if x.exact.is_none()
        && y.exact.is_none()
        && x.suffix.len() <= MAX_SET
        && y.prefix.len() <= MAX_SET
        && x.suffix.min_len() + y.prefix.min_len() >= 3
    {
        xy.query = xy.query.and_trigrams(&x.suffix.cross(&y.prefix));
    }
    // Kept small at every step: a run of small classes would otherwise cross into
    // an exact set that doubles with each one.
    xy.simplify(false);
    xy
}

fn alternate(mut x: Info, mut y: Info) -> Info {
    let mut xy = Info {
        can_empty: x.can_empty || y.can_empty,
        exact: None,
        prefix: Set::default(),
        suffix: Set::default(),
        query: Query::All,
    };
    match (&x.exact, &y.exact) {
        (Some(a), Some(b)) => xy.exact = Some(a.union(b)),
        (Some(a), None) => {
            xy.prefix = a.union(&y.prefix);
            xy.suffix = a.union(&y.suffix);
            x.add_exact();
        }
        (None, Some(b)) => {
            xy.prefix = x.prefix.union(b);
            xy.suffix = x.suffix.union(b);
            y.add_exact();
        }
        (None, None) => {
            xy.prefix = x.prefix.union(&y.prefix);
            xy.suffix = x.suffix.union(&y.suffix);
        }
    }
    xy.query = x.query.or(y.query);
    xy.simplify(false);
    xy
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(s: &str) -> Query {
        let b = s.as_bytes();
        Query::Tri(trigram(b[0], b[1], b[2]))
    }

    fn and(s: &str) -> Query {
        s.as_bytes()
            .windows(3)
            .map(|w| Query::Tri(trigram(w[0], w[1], w[2])))
            .fold(Query::All, Query::and)
            .normalized()
    }

    #[test]
    fn a_literal_needs_each_of_its_folded_trigrams() {
        assert_eq!(query("poll_ready", false, false), and("poll_ready"));
        assert_eq!(query("Poll_Ready", false, false), and("poll_ready"));
        assert_eq!(query("deprecated", false, true), and("deprecated"));
        assert_eq!(query("abc", false, false), tri("abc"));
        // Regex characters in a literal are literal.
        assert_eq!(query("a.b(", false, false), and("a.b("));
    }

    #[test]
    fn too_short_or_too_vague_asks_nothing() {
        for (pattern, regex) in [("ab", false), (".*", true), (r"\w+", true), ("a.b", true)] {
            assert_eq!(query(pattern, regex, false), Query::All, "{pattern}");
        }
        // The parser refuses it: the regex engine is the judge.
        assert_eq!(query("(unclosed", true, false), Query::All);
    }

    #[test]
    fn regexes_keep_their_literal_runs_and_alternatives() {
        assert_eq!(
            query(r"fn \w+_mut\(", true, false),
            and("fn ").and(and("_mut(")).normalized()
        );
        assert_eq!(
            query("hello|world", true, false),
            Query::Or(vec![and("hello"), and("world")])
        );
        // A small class crosses into the strings around it.
        assert_eq!(
            query("ab[cd]e", true, false),
            Query::Or(vec![and("abce"), and("abde")])
        );
        // The last `abc` runs into the `x`.
        assert_eq!(query("(abc)+x", true, false), and("abcx"));
        assert_eq!(query("(abc)?xyz", true, false), tri("xyz"));
    }

    /// A run of small classes (each crossing doubles the exact set) is planned in
    /// time and memory linear in the pattern: sets are cut down after every step,
    /// as in Cox's analysis. Unsimplified, these 40 classes were 2^40 strings.
    #[test]
    fn a_run_of_small_classes_stays_small() {
        let pattern = "[ab][cd][ef][gh]".repeat(10);
        let q = query(&pattern, true, false);
        assert_ne!(q, Query::All);
        let Query::And(all) = &q else { panic!("{q:?}") };
        assert!(all.len() < 200, "{}", all.len());
    }

    /// Case variants beyond ASCII letters (the Kelvin sign for `k`, the long s for
    /// `s`) are alternatives; ASCII ones need none, the index being folded.
    #[test]
    fn case_folding_beyond_ascii_is_spelled_out() {
        let q = query("ask", false, true);
        let Query::Or(alternatives) = &q else {
            panic!("{q:?}")
        };
        assert_eq!(alternatives.len(), 4, "{q:?}");
        assert!(alternatives.contains(&tri("ask")), "{q:?}");
        assert!(alternatives.contains(&and("a\u{17f}k")), "{q:?}");
        assert_eq!(query("ASK", false, false), tri("ask"));
    }
}

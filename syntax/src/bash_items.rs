//! Bash declarations read without a syntax tree: what the walker takes from
//! tree-sitter-bash's tree (`languages/bash.rs`), for the files this reader can
//! vouch for.
//!
//! The symbols are the function definitions (`f() …`, `function f …`) that are
//! statements of the file, of a listed function's `{ … }` body, or of an `if`
//! (any of its branches or conditions) that is itself such a statement, at any
//! depth. The skeleton lexer (`skeleton_bash`) follows the text as Bash and
//! tree-sitter-bash read it (quotes, expansions, heredocs, comments, reserved
//! words where a command starts) and marks, in the frames the walker looks into,
//! each function's head and whether it starts a statement, its body's opener and
//! closer, and each `if` and its `fi` ([`Mark`]); this reader builds the symbols
//! from the marks. What the walker skips (loops, `case` items, groups, subshells,
//! substitutions, pipelines and lists, a function's `( … )` body) the lexer makes
//! no marks in.
//!
//! The reader declines (the skeleton parse answers) where the lexer cannot follow
//! the text or gives up on what tree-sitter-bash reads otherwise than Bash (see
//! `skeleton_bash`: `! f() …`, `x=1 f() …`, heredoc delimiters, …), and where the
//! tree may not be the one the marks describe: a function or an `if` that may be in
//! a loop's condition, a `function` that tree-sitter-bash may read as the name of
//! the bare command before it (`x=1 y=2⏎function f …`), a body other than `{ … }`
//! or `( … )` (`if`, `[[`, `((`, or none) or not right after the head but for
//! blanks, line breaks and comments, a name other than a plain word (ASCII letters,
//! digits and `_ - . : + @`, not a reserved word, no leading digit or `-`), a
//! heredoc whose body comes after a mark's line, a listed function or an `if`
//! holding one followed by anything but redirections of plain words and then a
//! command's end (`;`, `&`, a line break, a comment, the end of the text) or `&&`,
//! `||`, `|` (a definition with one redirection is listed, with more it is a
//! `redirected_statement`'s body, and before `&&` or `|` a list's or pipeline's
//! part: neither is listed, nor what is in it), a carriage return anywhere
//! (tree-sitter reads it as a blank, the lexer inside words), and frames nested
//! deeper than [`MAX_DEPTH`]. The test over real code (`fast_check`) compares its
//! symbols with whole parses.

use crate::{SymbolKind as K, rust_items::Decl, skeleton_bash::Mark};

/// The declarations of a Bash file, or `None` where this reader cannot vouch for
/// the answer.
pub(super) fn parse(src: &[u8]) -> Option<Vec<Decl>> {
    if memchr::memchr(b'\r', src).is_some() {
        return None;
    }
    let mut open: Vec<Open> = Vec::new();
    let mut out = Vec::new();
    // A function whose head was read, its body not yet.
    let mut head: Option<Head> = None;
    for mark in crate::skeleton_bash::marks(src)? {
        match mark {
            Mark::Function {
                start,
                name,
                head_end,
                plain,
                heredoc,
            } => {
                let sure = plain && !heredoc && head.is_none() && is_name(&src[name.0..name.1]);
                sure.then_some(())?;
                head = Some(Head {
                    start,
                    name,
                    head_end,
                });
            }
            Mark::Body { at, heredoc } => {
                let head = head.take()?;
                (!heredoc && next_token(src, head.head_end) == at).then_some(())?;
                open.push(Open {
                    function: Some((head, at)),
                    members: Vec::new(),
                });
            }
            Mark::If { heredoc } => {
                (!heredoc && head.is_none()).then_some(())?;
                open.push(Open {
                    function: None,
                    members: Vec::new(),
                });
            }
            Mark::Unsure => return None,
            Mark::Close { at, heredoc } => {
                let closed = open.pop()?;
                (!heredoc && head.is_none()).then_some(())?;
                let into = match open.last_mut() {
                    Some(o) => &mut o.members,
                    None => &mut out,
                };
                // What follows decides whether it is a statement: one redirection
                // is a definition's own; with more, the definition or `if` is a
                // `redirected_statement`'s body, and before `&&` or `|` a list's or
                // pipeline's part, no symbol (nor what is in it).
                match closed.function {
                    Some((head, body)) => {
                        if let After::End {
                            redirections: 0 | 1,
                            end,
                        } = after(src, at + 1)?
                        {
                            into.push(Decl {
                                kind: K::Function,
                                name: head.name.0..head.name.1,
                                bytes: head.start..end,
                                core: head.start,
                                sig_end: Some(body),
                                members: closed.members,
                                impl_of: None,
                                qualifier: None,
                                head: None,
                            });
                        }
                    }
                    // `fi`.
                    None if closed.members.is_empty() => {}
                    None => {
                        if let After::End {
                            redirections: 0, ..
                        } = after(src, at + 2)?
                        {
                            into.extend(closed.members);
                        }
                    }
                }
            }
        }
        if open.len() > MAX_DEPTH {
            return None;
        }
    }
    (head.is_none() && open.is_empty()).then_some(out)
}

/// Function bodies and `if`s open at most: the walker stops at 64 containers, and
/// each here is one or two of them (an `if_statement` and its `else_clause`).
const MAX_DEPTH: usize = 20;

/// A function's head: where its definition starts, its name, where its head ends.
struct Head {
    start: usize,
    name: (usize, usize),
    head_end: usize,
}

/// A function's body or an `if`, open: the symbols listed in it so far.
struct Open {
    /// A function's head and where its body opens; `None` for an `if`.
    function: Option<(Head, usize)>,
    members: Vec<Decl>,
}

/// Where the first token from `at` is: past blanks, line breaks and comments.
fn next_token(src: &[u8], mut at: usize) -> usize {
    while let Some(&b) = src.get(at) {
        match b {
            b' ' | b'\t' | b'\n' => at += 1,
            b'#' => at = memchr::memchr(b'\n', &src[at..]).map_or(src.len(), |i| at + i),
            _ => break,
        }
    }
    at
}

/// What follows a compound command's closer.
enum After {
    /// Redirections (of plain words only: `>x`, `2>&1`, `>> /dev/null`), then the
    /// command's end, at `end`: the last redirection's, else the closer's.
    End { redirections: usize, end: usize },
    /// Redirections, then `&&`, `||`, `|` or `|&`.
    Operand,
}

/// What follows the compound command whose closer ends at `end`; `None` where it
/// is anything else.
fn after(src: &[u8], mut end: usize) -> Option<After> {
    let mut redirections = 0;
    loop {
        let next = &src[end + blanks(src, end)..];
        if next.starts_with(b"&&") || next.starts_with(b"|") {
            return Some(After::Operand);
        }
        if ends_command(src, end) {
            return Some(After::End { redirections, end });
        }
        end = redirection(src, end)?;
        redirections += 1;
    }
}

/// After blanks from `at`, a redirection of a plain word: where it ends.
fn redirection(src: &[u8], at: usize) -> Option<usize> {
    let mut at = at + blanks(src, at);
    at += src[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    let op = [&b">>"[..], b">&", b">|", b"&>>", b"&>", b"<&", b">", b"<"]
        .into_iter()
        .find(|op| src[at..].starts_with(op))?;
    at += op.len();
    at += blanks(src, at);
    let word = src[at..]
        .iter()
        .take_while(|&&b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-' | b'.' | b'/' | b':' | b'+' | b'@' | b'%' | b','
                )
        })
        .count();
    (word > 0).then_some(at + word)
}

/// How many spaces and tabs there are from `at`.
fn blanks(src: &[u8], at: usize) -> usize {
    src[at..]
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count()
}

/// Whether a command ends at `end` (after blanks): a `;` or `&` that is no more than
/// that, a line break, a comment, the end of the text.
fn ends_command(src: &[u8], end: usize) -> bool {
    let blanks = blanks(src, end);
    match &src[end + blanks..] {
        [] | [b'\n', ..] => true,
        [b'#', ..] => blanks > 0,
        [b';', rest @ ..] => !matches!(rest.first(), Some(b';' | b'&')),
        [b'&', rest @ ..] => !matches!(rest.first(), Some(b'&' | b'>')),
        _ => false,
    }
}

/// Whether tree-sitter-bash reads `name` as one plain word that names a function
/// (no reserved word, nothing its scanner takes for a number, a test operator or
/// a glob).
fn is_name(name: &[u8]) -> bool {
    let Some(&first) = name.first() else {
        return false;
    };
    !first.is_ascii_digit()
        && first != b'-'
        && name.iter().all(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'+' | b'@')
        })
        && !matches!(
            name,
            b"if"
                | b"then"
                | b"else"
                | b"elif"
                | b"fi"
                | b"case"
                | b"esac"
                | b"for"
                | b"select"
                | b"while"
                | b"until"
                | b"do"
                | b"done"
                | b"in"
                | b"function"
                | b"time"
                | b"coproc"
                | b"declare"
                | b"typeset"
                | b"export"
                | b"readonly"
                | b"local"
                | b"unset"
                | b"unsetenv"
        )
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::parse;
    use crate::{
        Lang,
        tests::{Generated, check, reader_agrees},
    };

    /// Functions in both forms, nested and in `if`s, with what hides reserved words
    /// and closers from the lexer; and what only looks like a listed function (in a
    /// loop, a `case` item, a group, a subshell, a substitution, a pipeline or list,
    /// a `( … )` body, behind two redirections).
    const READ: &str = r#"#!/bin/bash
# Prints usage.
usage() {
    echo "usage: $0 # not a comment }" '}' ${x:-\}} $(echo '}' ")") `fi`
    cat <<-EOF
	} fi done
	EOF
}

function install {
    helper() { :; }
    if [[ -n $1 && ( -f $1 ) ]]; then
        deeper() { echo "${1%%/*}"; }
    elif x=$(( (1 + 2) * 3 )); then
        other ()
        {
            :
        }
    else
        for f in a b; do looped() { :; }; done
    fi
} >/dev/null

function in_subshell() ( not_listed() { :; } )
if f() { :; }; then :; fi
while read -r l; do in_loop() { :; }; done <file
case "$1" in
    a|b) in_case() { :; } ;;
    (c) echo $(case x in a) echo }; esac) ;;
esac
{ grouped() { :; }; } 2>/dev/null
x=$(sub() { :; }) y=( a '}' ")" )
true && in_list() { :; }
! x && not_listed() { :; }
redirected() { :; } 7>&2 2>&4
if true; then in_redirected_if() { :; }; fi >log
a.b:c-d@e+f () # between
{
    :
} &
last() { echo >elif; }
"#;

    #[test]
    fn reads_what_the_walker_takes_from_a_whole_parse() {
        assert!(parse(READ.as_bytes()).is_some(), "declined");
        check(
            Lang::Bash,
            READ,
            expect![[r#"
            function usage 3:0-8:1 name@3:0 | usage()
            function install 10:0-22:12 name@10:9 | function install
              function install/helper 11:4-11:19 name@11:4 | helper()
              function install/deeper 13:8-13:37 name@13:8 | deeper()
              function install/other 15:8-18:9 name@15:8 | other ()
            function in_subshell 24:0-24:46 name@24:9 | function in_subshell()
            function f 25:3-25:13 name@25:3 | f()
            function a.b:c-d@e+f 37:0-40:1 name@37:0 | a.b:c-d@e+f ()
            function last 41:0-41:22 name@41:0 | last()
        "#]],
        );
    }

    /// Each parses cleanly whole; the reader vouches for it and lists what the whole
    /// parse does.
    #[test]
    fn tricky_but_clean_code_reads_as_the_whole_parse_reads_it() {
        for src in [
            "f() { :; }",
            "f(){ :; };g ( ) { :; }",
            "function f { :; }\nfunction g() { :; }\nfunction h\n{\n:\n}\n",
            "f()\n\n# c\n{ :; }\n",
            "f() { g() { h() { :; }; }; }",
            "if a; then f() { :; }; elif b; then g() { :; }; else h() { :; }; fi",
            "if a; then if b; then f() { :; }; fi; fi # c",
            "if a; then :; elif f() { :; }; then :; else\nif b; then g() { :; }; fi\nfi",
            "f() { :; } >x\ng() { :; } 2>&1\nh() { :; } >&2 3>&1\n",
            "f() { :; } | cat\ng() { :; } >x && true\nif x; then h() { :; }; fi |& cat\n",
            "if x; then f() { :; }; fi >x || y\nif x; then g() { :; }; fi 2>&1\n",
            "f() ( g() { :; } )\n",
            "a &&\n\nf() { :; }\nb |\n g() { :; }\n",
            "for x in a b; do f() { :; }; done; g() { :; }",
            "for ((i = 0; i < 3; i++)); do f() { :; }; done; g() { :; }",
            "for ((;;)) { f() { :; }; }; if x; then g() { :; }; fi",
            "case x in a) f() { :; };; b) ;; esac; g() { :; }",
            "cat <<EOF\nf() { :; }\nEOF\ng() { :; }\n",
            "cat <<-'EOF'\n\t}\n\tfi\n\tEOF\nf() { :; }\n",
            "x=$(f() { :; }; f)\ng() { echo \"$(h() { :; })\"; }",
            "echo fi done esac } { then\nf() { :; }",
            "f() { :; } &\ng() { :; };",
            "x=1\ny+=2\nz[1]=3\nf() { local a=$1; }",
            "f() {\n  x=1 y=2\n}\nh() { :; }",
            "x=1 y=2\nif x; then f() { :; }; fi\na=1 b=2\n\nwhile x; do :; done; g() { :; }",
            "x=1 y=\n\n# c\nf () { :; }",
            "if x; then a=1 b=2\nfi; h() { :; }",
            "f() { [[ $x =~ ^(a|b)?$ ]] && echo; }\ng() { (( x > 1 )) || echo; }",
        ] {
            assert_eq!(reader_agrees(Lang::Bash, src), Some(true), "{src:?}");
        }
    }

    #[test]
    fn what_it_cannot_vouch_for_is_left_to_tree_sitter() {
        for src in [
            "f() { :; ",
            "f() { :; } }",
            "fi",
            "f() ((x++))",
            "f() [[ -n x ]]",
            "f() if x; then :; fi",
            "f() g() { :; }",
            "f() x",
            "f()",
            "x=1 f() { :; }",
            "time f() { :; }",
            "f() { :; } >\"$x\"",
            "f() { :; } <<EOF\nx\nEOF\n",
            "f() { :; } >x y",
            "f() { :; } fi",
            "cat <<EOF; f() { :; }\nx\nEOF\n",
            "f() { cat <<EOF; }\nx\nEOF\n",
            "while x; f() { :; }; do :; done",
            "while f() { :; }; false; do :; done",
            "1f() { :; }",
            "-f() { :; }",
            "in() { :; }",
            "function do { :; }",
            "a=b() { :; }",
            "f$x() { :; }",
            "f() { :; }\r\n",
            "f() \\\n{ :; }",
            "echo\n\\\nf() { :; }",
            "x=1 y=2\nfunction f { :; }",
            "x=1 >f\nif x; then f() { :; }; fi",
            "x=1 >f\nwhile x; do :; done; f() { :; }",
            ">x y=1\ng() { :; }",
            "cat <<EOF\nEOFX\nEOF\nf() { :; }",
            "while if x; then f() { :; }; fi; do :; done",
            "! if x; then f() { :; }; fi",
            "echo 'unterminated",
            "echo $'a\\",
            "echo `a\\",
            "_(\"x\")",
        ] {
            assert!(parse(src.as_bytes()).is_none(), "vouched for {src:?}");
        }
        assert!(parse(b"").is_some_and(|d| d.is_empty()));
        // Nested past what the walker walks, the reader declines; frames it does not
        // walk nest as deep as the lexer follows.
        let deep = "f() { ".repeat(30) + &"}; ".repeat(30);
        assert!(parse(deep.as_bytes()).is_none());
        let loops = "while :; do ".repeat(1000) + &"done; ".repeat(1000);
        assert!(parse(loops.as_bytes()).is_some());
    }

    /// Statements and stray tokens strung together at random, with comments and
    /// line breaks between them: on every text the grammar reads cleanly, the reader
    /// declines or lists what the whole parse does.
    #[test]
    fn generated_statements_read_as_the_whole_parse_reads_them() {
        let statements = [
            "f() { :; }",
            "function g { echo; }",
            "function h() ( cd / )",
            "k() {\n  inner() { :; }\n}",
            "if x; then\n  i() { :; }\nelif y; then j() { :; }\nelse :; fi",
            "if q() { :; }; then :; fi",
            "while read l; do w() { :; }; done",
            "for i in a b; do :; done",
            "case $x in a) c() { :; } ;; esac",
            "{ g() { :; }; }",
            "( s() { :; } )",
            "x=1",
            "echo \"$(h() { :; })\" }",
            "cat <<EOF\n} fi\nEOF",
            "a && b() { :; }",
            "m() { :; } >/dev/null",
            "n() { :; } 7>&2 2>&4",
            "true | p() { :; }",
            "o() { if x; then oi() { :; }; fi; }",
            "x=$(( 1 + 2 ))",
            "if x; then :; fi > log",
            "if x; then y() { :; }; fi && x",
            "t() { :; } &",
            "! x",
            "echo fi done }",
            "x=1 y=2",
            ">f x=1",
            "time x",
            "! [[ -n x ]]",
            "cat <<-EOF\n\tEOFX\n\tEOF",
            "cat <<'EOF'\n$(\nEOF",
            "[[ $x == @(a|b) ]]",
            "echo $(( x )) ${y:-}} `z`",
            "for ((;;)) { :; }",
            "until x; do :; done",
            "coproc x",
            "case $1 in (a|if) ;& *\\)*) x ;;& esac",
            "x=$(case y in a) echo };; esac)",
            "echo ${x#*}} ${y//\\}/a} ${#z} $# a#b",
            "[[ a < b && $x =~ ^(f|g)\\ $ ]]",
            "echo `echo \"}\"` \\{ \\} \\;",
            "cat <<EOF\n$(v() { :; })\nEOF",
            "x=$(cat <<EOF\n)\nEOF\n)",
            "# it's } fi",
            "function fs () { :; }",
            "echo if then do done function",
            "((x++))",
            "echo a \\\n  b",
            "e() { if x; then ei() { :; }; else ej() ( : ); fi; }",
            "local x; l() { :; }",
            "{ :; }",
            "2>f x=1",
            "x=1 >f",
            "a=(1 2) b=3",
            "export x=1",
            "readonly z=1 w=2",
            "x+=1 y[2]=3",
            "f.g-h:i() { :; }",
            "function j.k { :; }",
            "IFS= read -r x",
            "exec 3>&1 >f",
            "{ :; } >f 2>&1",
            "(( x )) && y() { :; }",
        ];
        let tokens = [
            "{",
            "}",
            "(",
            ")",
            ";",
            "&",
            "&&",
            "|",
            "fi",
            "then",
            "done",
            "do",
            "if x; then",
            "else",
            "f()",
            "function",
            "#c\n",
            "<<EOF",
            "'",
            "\"",
            "`",
            "$(",
            "\\\n",
            ">x",
            "2>&1",
            "!",
            "time",
            "x=1",
            "in",
            "esac",
            "[[",
            "]]",
            "$((",
        ];
        let breaks = [
            "\n", "; ", " ", "\n\n", " # c\n", " &\n", "\t", " \\\n", "\n#c\n", " ;\n",
        ];
        let (clean, vouched) = Generated {
            lang: Lang::Bash,
            prefix: "",
            statements: &statements,
            tokens: &tokens,
            token_one_in: 6,
            breaks: &breaks,
            respace: true,
            rounds: 10000,
        }
        .run();
        assert!(
            vouched > 1000 && vouched * 10 > clean * 6,
            "{vouched} of {clean}"
        );
    }

    /// The reader vouches for nearly every file of the conformance corpus
    /// (`daemon/benches/fetch-conformance.sh`: dracut and bats-support), or the
    /// first index is slow again; `fast_check` compares what it reads with whole
    /// parses.
    #[test]
    fn the_reader_vouches_for_nearly_every_file_of_real_code() {
        crate::tests::follows_real_code("bash", &["sh", "bash"], 40, 1, |src| parse(src).is_some());
    }
}

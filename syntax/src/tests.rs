//! Outline snapshots per language (expect-test: `UPDATE_EXPECT=1 cargo test` rewrites
//! them). Each line: kind, name path, range, name position, signature.

use std::ops::Range;

use expect_test::{Expect, expect};

use super::{
    Lang,
    fast_check::{self, compared, outline},
    rust_items,
    skeleton::Skeleton,
    symbols::{Parse, extract, extract_with},
};

/// For the skeleton lexers' tests that they follow nearly every file of real code
/// (or the first index is slow again): the files under the conformance corpus's
/// `dir` (`daemon/benches/fetch-conformance.sh`) with one of `extensions`, asserted
/// at least `at_least`, and that `follows` gives up on at most `percent` of them.
pub(crate) fn follows_real_code(
    dir: &str,
    extensions: &[&str],
    at_least: usize,
    percent: usize,
    follows: impl Fn(&[u8]) -> bool,
) {
    let (mut files, mut unfollowed) = (0, Vec::new());
    for entry in ignore::WalkBuilder::new(lean_ctx_testkit::corpus().join(dir))
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
    {
        let path = entry.into_path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !path.is_file() || !extensions.contains(&ext) {
            continue;
        }
        files += 1;
        let src = std::fs::read(&path).unwrap();
        if !follows(crate::bom::strip(&src)) {
            unfollowed.push(path.display().to_string());
        }
    }
    assert!(files >= at_least, "only {files} {dir} files");
    assert!(
        unfollowed.len() * 100 <= files * percent,
        "{dir}: the lexer gave up on {} of {files} files: {unfollowed:#?}",
        unfollowed.len()
    );
}

/// For the skeleton lexers' tests: the text of each range `skippable` finds in
/// `src`, in order.
pub(crate) fn skipped(skippable: impl Fn(&[u8]) -> Vec<Range<usize>>, src: &str) -> Vec<&str> {
    skippable(src.as_bytes())
        .into_iter()
        .map(|r| &src[r])
        .collect()
}

/// For the declaration readers' tests over generated snippets: `None` where `src`
/// does not parse cleanly whole (not counted); else whether `lang`'s reader vouches
/// for it, asserted to list what the whole parse lists when it does.
pub(crate) fn reader_agrees(lang: Lang, src: &str) -> Option<bool> {
    let whole = extract_with(lang, src.as_bytes(), Parse::Whole);
    if whole.syntax_error.is_some() {
        return None;
    }
    let read = (lang.language().declarations.expect("a reader").read)(src.as_bytes());
    if read.is_some() {
        let read = extract_with(lang, src.as_bytes(), Parse::Declarations);
        assert_eq!(compared(&read), compared(&whole), "{src:?}");
    }
    Some(read.is_some())
}

/// For the declaration readers' tests over generated programs: `rounds` texts of
/// `prefix` then one to eight pieces, each a stray token one time in `token_one_in`
/// and a statement otherwise, each followed by one of `breaks` (and, when `respace`,
/// half of the texts with every space replaced by one break). Each goes through
/// [`reader_agrees`]; returns how many parsed cleanly whole and how many of those the
/// reader vouched for.
pub(crate) struct Generated<'a> {
    pub lang: Lang,
    pub prefix: &'a str,
    pub statements: &'a [&'a str],
    pub tokens: &'a [&'a str],
    pub token_one_in: usize,
    pub breaks: &'a [&'a str],
    pub respace: bool,
    pub rounds: usize,
}

impl Generated<'_> {
    pub(crate) fn run(&self) -> (usize, usize) {
        let mut pick = picker();
        let (mut clean, mut vouched) = (0, 0);
        for _ in 0..self.rounds {
            let mut src = String::from(self.prefix);
            for _ in 0..1 + pick(8) {
                if pick(self.token_one_in) == 0 {
                    src.push_str(self.tokens[pick(self.tokens.len())]);
                } else {
                    src.push_str(self.statements[pick(self.statements.len())]);
                }
                src.push_str(self.breaks[pick(self.breaks.len())]);
            }
            if self.respace && pick(2) == 0 {
                src = src.replace(' ', self.breaks[pick(self.breaks.len())]);
            }
            let Some(vouches) = reader_agrees(self.lang, &src) else {
                continue;
            };
            clean += 1;
            vouched += usize::from(vouches);
        }
        (clean, vouched)
    }
}

/// A deterministic picker for generated tests (xorshift64): `pick(n)` is below `n`.
pub(crate) fn picker() -> impl FnMut(usize) -> usize {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

/// For the skeleton lexers' tests: `skippable` gives up on each of `srcs` (text it
/// cannot follow), skipping nothing.
pub(crate) fn skips_nothing(skippable: impl Fn(&[u8]) -> Vec<Range<usize>>, srcs: &[&str]) {
    for src in srcs {
        assert_eq!(skipped(&skippable, src), Vec::<&str>::new(), "{src}");
    }
}

/// For the skeleton lexers' tests of their tricky constructs: `src` parses cleanly
/// whole, its skeleton skips at least `at_least_skipped` ranges and itself parses
/// without an error (so no whole parse stands behind the outline), and lists the
/// same symbols as the whole parse, at least `at_least_symbols` of them. The
/// skeleton, for what a lexer asserts beyond that.
pub(crate) fn skeleton_reads_as_whole(
    lang: Lang,
    src: &str,
    at_least_skipped: usize,
    at_least_symbols: usize,
) -> Skeleton {
    let whole = extract_with(lang, src.as_bytes(), Parse::Whole);
    assert_eq!(whole.syntax_error, None, "{lang:?}: {}", outline(&whole));
    let skeleton = Skeleton::of(lang, src.as_bytes()).expect("a skeleton");
    assert!(
        skeleton.skipped.len() >= at_least_skipped,
        "{lang:?}: {:?}",
        skeleton.skipped
    );
    let tree = lang.parse(&skeleton.text, &skeleton.included).unwrap();
    assert!(
        !tree.root_node().has_error(),
        "{lang:?}: {}",
        tree.root_node().to_sexp()
    );
    let fast = extract_with(lang, src.as_bytes(), Parse::Skeleton);
    assert_eq!(compared(&fast), compared(&whole), "{lang:?}");
    assert!(
        whole.count >= at_least_symbols,
        "{lang:?}: {}",
        outline(&whole)
    );
    skeleton
}

pub(crate) fn check(lang: Lang, src: &str, expect: Expect) {
    let parsed = extract(lang, src.as_bytes());
    let mut out = outline(&parsed);
    if let Some(err) = parsed.syntax_error {
        out.push_str(&format!("syntax error at {err}\n"));
    }
    expect.assert_eq(&out);
    let whole = extract_with(lang, src.as_bytes(), Parse::Whole);
    if whole.syntax_error.is_none() {
        let skeleton = extract_with(lang, src.as_bytes(), Parse::Skeleton);
        assert_eq!(
            outline(&whole),
            outline(&skeleton),
            "skeleton and whole parse differ"
        );
        assert_eq!(
            outline(&whole),
            outline(&parsed),
            "declarations and whole parse differ"
        );
    }
}

#[test]
fn rust_items_impls_traits_modules_and_duplicates() {
    check(
        Lang::Rust,
        r#"//! Crate docs.
use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point<T> { pub x: T, y: T }

pub enum Shape { Circle(f64), Square { side: f64 } }

impl<T: Copy> Point<T> {
    pub fn new(x: T, y: T) -> Self { Point { x, y } }
    fn swap(&self) -> Self { Point { x: self.y, y: self.x } }
}

impl<T> fmt::Display for Point<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}

impl<T> Default for &Point<T> {
    fn default() -> Self { loop {} }
}

pub trait Area {
    type Unit;
    const SIDES: u32;
    fn area(&self) -> f64;
    fn twice(&self) -> f64 { self.area() * 2.0 }
}

mod outer {
    pub mod inner {
        pub fn deep() {}
    }
    #[cfg(unix)]
    fn platform() {}
    #[cfg(windows)]
    fn platform() {}
}

macro_rules! square { ($x:expr) => { $x * $x }; }
const LIMIT: usize = 10;
static NAME: &str = "größe";
type Pair = (u8, u8);
fn größe() -> u32 { let local = 1; local }
square!(3);
"#,
        expect![[r#"
            struct Point 5:0-6:38 name@6:11 | pub struct Point<T>
              field Point/x 6:22-6:30 name@6:26 | pub x: T
              field Point/y 6:32-6:36 name@6:32 | y: T
            enum Shape 8:0-8:52 name@8:9 | pub enum Shape
              enum_member Shape/Circle 8:17-8:28 name@8:17 | Circle(f64)
              enum_member Shape/Square 8:30-8:50 name@8:30 | Square { side: f64 }
            impl impl Point<T> 10:0-13:1 name@10:14 | impl<T: Copy> Point<T>
              method Point/new 11:4-11:53 name@11:11 | pub fn new(x: T, y: T) -> Self
              method Point/swap 12:4-12:61 name@12:7 | fn swap(&self) -> Self
            impl impl fmt::Display for Point<T> 15:0-17:1 name@15:25 | impl<T> fmt::Display for Point<T>
              method Point/fmt 16:4-16:71 name@16:7 | fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result
            impl impl Default for &Point<T> 19:0-21:1 name@19:20 | impl<T> Default for &Point<T>
              method Point/default 20:4-20:36 name@20:7 | fn default() -> Self
            trait Area 23:0-28:1 name@23:10 | pub trait Area
              type_alias Area/Unit 24:4-24:14 name@24:9 | type Unit;
              constant Area/SIDES 25:4-25:21 name@25:10 | const SIDES: u32;
              method Area/area 26:4-26:26 name@26:7 | fn area(&self) -> f64;
              method Area/twice 27:4-27:48 name@27:7 | fn twice(&self) -> f64
            module outer 30:0-38:1 name@30:4 | mod outer
              module outer/inner 31:4-33:5 name@31:12 | pub mod inner
                function outer/inner/deep 32:8-32:24 name@32:15 | pub fn deep()
              function outer/platform 34:4-35:20 name@35:7 | fn platform()
              function outer/platform[1] 36:4-37:20 name@37:7 | fn platform()
            macro square 40:0-40:49 name@40:13 | macro_rules! square
            constant LIMIT 41:0-41:24 name@41:6 | const LIMIT: usize
            static NAME 42:0-42:28 name@42:7 | static NAME: &str
            type_alias Pair 43:0-43:21 name@43:5 | type Pair = (u8, u8);
            function größe 44:0-44:42 name@44:3 | fn größe() -> u32
        "#]],
    );
}

#[test]
fn python_classes_methods_decorators_and_assignments() {
    check(
        Lang::Python,
        r#"import os

MAX_SIZE = 10
counter = 0

@dataclass
class Point:
    """A point."""
    x: int = 0
    origin = None

    def __init__(self, x):  # Instance variables
        self.x = x

    @property
    def norm(self) -> float:
        def helper():
            pass
        return 1.0

    class Inner:
        def deep(self): ...

async def fetch(url: str) -> bytes:
    return b""

def größe(): pass
def größe(): pass
"#,
        expect![[r#"
            constant MAX_SIZE 3:0-3:13 name@3:0 | MAX_SIZE
            variable counter 4:0-4:11 name@4:0 | counter
            class Point 6:0-22:27 name@7:6 | class Point
              field Point/x 9:4-9:14 name@9:4 | x: int
              field Point/origin 10:4-10:17 name@10:4 | origin
              method Point/__init__ 12:4-13:18 name@12:8 | def __init__(self, x)
              method Point/norm 15:4-19:18 name@16:8 | def norm(self) -> float
              class Point/Inner 21:4-22:27 name@21:10 | class Inner
                method Point/Inner/deep 22:8-22:27 name@22:12 | def deep(self)
            function fetch 24:0-25:14 name@24:10 | async def fetch(url: str) -> bytes
            function größe 27:0-27:17 name@27:4 | def größe()
            function größe[1] 28:0-28:17 name@28:4 | def größe()
        "#]],
    );
}

#[test]
fn typescript_classes_interfaces_enums_namespaces_and_exports() {
    check(
        Lang::TypeScript,
        r#"export interface Shape {
  area(): number;
  readonly name: string;
}

export class Circle implements Shape {
  private radius: number = 1;
  constructor(r: number) { this.radius = r; }
  area(): number { return 3.14 * this.radius ** 2; }
  get name() { return "circle"; }
}

export enum Color { Red, Green = "g" }
export type Id = string | number;
export const MAX = 10;
let counter = 0;
export const handler = async (req: Request): Promise<void> => { const inner = 1; };
function helper<T>(x: T): T { return x; }
namespace Geometry { export function unit() {} }
export default abstract class Base { abstract run(): void; }
"#,
        expect![[r#"
            interface Shape 1:0-4:1 name@1:17 | export interface Shape
              method Shape/area 2:2-2:16 name@2:2 | area(): number
              property Shape/name 3:2-3:23 name@3:11 | readonly name: string
            class Circle 6:0-11:1 name@6:13 | export class Circle implements Shape
              field Circle/radius 7:2-7:28 name@7:10 | private radius: number
              constructor Circle/constructor 8:2-8:45 name@8:2 | constructor(r: number)
              method Circle/area 9:2-9:52 name@9:2 | area(): number
              method Circle/name 10:2-10:33 name@10:6 | get name()
            enum Color 13:0-13:38 name@13:12 | export enum Color
              enum_member Color/Red 13:20-13:23 name@13:20 | Red
              enum_member Color/Green 13:25-13:36 name@13:25 | Green = "g"
            type_alias Id 14:0-14:33 name@14:12 | export type Id
            constant MAX 15:0-15:22 name@15:13 | export const MAX
            variable counter 16:0-16:16 name@16:4 | let counter
            function handler 17:0-17:83 name@17:13 | export const handler = async (req: Request): Promise<void> =>
            function helper 18:0-18:41 name@18:9 | function helper<T>(x: T): T
            module Geometry 19:0-19:48 name@19:10 | namespace Geometry
              function Geometry/unit 19:21-19:46 name@19:37 | export function unit()
            class Base 20:0-20:60 name@20:30 | export default abstract class Base
              method Base/run 20:37-20:57 name@20:46 | abstract run(): void
        "#]],
    );
}

#[test]
fn tsx_and_javascript_share_the_script_rules() {
    check(
        Lang::Tsx,
        r#"export function App({ title }: Props) { return <div>{title}</div>; }
export const Button = () => <button />;
"#,
        expect![[r#"
            function App 1:0-1:68 name@1:16 | export function App({ title }: Props)
            function Button 2:0-2:39 name@2:13 | export const Button = () =>
        "#]],
    );
    check(
        Lang::JavaScript,
        r#"class Counter {
  count = 0;
  increment() { this.count++; }
}
function* ids() { yield 1; }
const log = function (msg) { console.log(msg); };
var legacy = 1;
module.exports = { Counter };
"#,
        expect![[r#"
            class Counter 1:0-4:1 name@1:6 | class Counter
              field Counter/count 2:2-2:11 name@2:2 | count
              method Counter/increment 3:2-3:31 name@3:2 | increment()
            function ids 5:0-5:28 name@5:10 | function* ids()
            function log 6:0-6:49 name@6:6 | const log = function (msg)
            variable legacy 7:0-7:15 name@7:4 | var legacy
        "#]],
    );
}

#[test]
fn go_types_methods_on_receivers_and_grouped_declarations() {
    check(
        Lang::Go,
        r#"package shapes

import "fmt"

const (
	Pi    = 3.14
	E, Ln2 = 2.71, 0.69
)

var Verbose bool

type Point struct {
	X, Y float64
	label string
}

type Shape interface {
	Area() float64
}

type ID = string

func (p *Point) Area() float64 { return 0 }
func (p Point) String() string { return fmt.Sprint(p.X) }
func New(x, y float64) *Point { return &Point{X: x, Y: y} }
"#,
        expect![[r#"
            constant Pi 6:1-6:13 name@6:1 | Pi
            constant E 7:1-7:20 name@7:1 | E, Ln2
            constant Ln2 7:1-7:20 name@7:4 | E, Ln2
            variable Verbose 10:0-10:16 name@10:4 | var Verbose bool
            struct Point 12:0-15:1 name@12:5 | type Point struct
              field Point/X 13:1-13:13 name@13:1 | X, Y float64
              field Point/Y 13:1-13:13 name@13:4 | X, Y float64
              field Point/label 14:1-14:13 name@14:1 | label string
            interface Shape 17:0-19:1 name@17:5 | type Shape
              method Shape/Area 18:1-18:15 name@18:1 | Area() float64
            type_alias ID 21:0-21:16 name@21:5 | type ID = string
            method Point/Area 23:0-23:43 name@23:16 | func (p *Point) Area() float64
            method Point/String 24:0-24:57 name@24:15 | func (p Point) String() string
            function New 25:0-25:59 name@25:5 | func New(x, y float64) *Point
        "#]],
    );
}

#[test]
fn java_classes_interfaces_enums_records_and_fields() {
    check(
        Lang::Java,
        r#"package demo;

public class Greeter {
    private static final int MAX = 3, MIN = 1;
    private final String name;

    public Greeter(String name) { this.name = name; }

    @Override
    public String toString() { return name; }

    static class Inner { void run() {} }
}

interface Named { String name(); }

enum Level { LOW, HIGH; int weight() { return 1; } }

record Pair(int a, int b) { int sum() { return a + b; } }
"#,
        expect![[r#"
            class Greeter 3:0-13:1 name@3:13 | public class Greeter
              field Greeter/MAX 4:4-4:46 name@4:29 | private static final int MAX
              field Greeter/MIN 4:4-4:46 name@4:38 | private static final int MIN
              field Greeter/name 5:4-5:30 name@5:25 | private final String name
              constructor Greeter/Greeter 7:4-7:53 name@7:11 | public Greeter(String name)
              method Greeter/toString 9:4-10:45 name@10:18 | public String toString()
              class Greeter/Inner 12:4-12:40 name@12:17 | static class Inner
                method Greeter/Inner/run 12:25-12:38 name@12:30 | void run()
            interface Named 15:0-15:34 name@15:10 | interface Named
              method Named/name 15:18-15:32 name@15:25 | String name();
            enum Level 17:0-17:52 name@17:5 | enum Level
              enum_member Level/LOW 17:13-17:16 name@17:13 | LOW
              enum_member Level/HIGH 17:18-17:22 name@17:18 | HIGH
              method Level/weight 17:24-17:50 name@17:28 | int weight()
            class Pair 19:0-19:57 name@19:7 | record Pair(int a, int b)
              method Pair/sum 19:28-19:55 name@19:32 | int sum()
        "#]],
    );
}

#[test]
fn kotlin_classes_objects_functions_and_properties() {
    check(
        Lang::Kotlin,
        r#"package demo

data class User(val name: String) {
    val greeting: String = "hi"
    fun greet(): String = "$greeting $name"
    constructor() : this("anon")
    companion object {
        fun create(): User = User("x")
    }
}

interface Repo {
    fun find(id: Int): User?
}

enum class Color {
    RED,
    GREEN,
}

object Registry {
    val users = mutableListOf<User>()
}

typealias Users = List<User>

fun main() {
    println("hi")
}
"#,
        expect![[r#"
            class User 3:0-10:1 name@3:11 | data class User(val name: String)
              property User/greeting 4:4-4:31 name@4:8 | val greeting: String
              method User/greet 5:4-5:43 name@5:8 | fun greet(): String
              constructor User/constructor 6:4-6:32 name@6:4 | constructor() : this("anon")
              object User/Companion 7:4-9:5 name@7:4 | companion object
                method User/Companion/create 8:8-8:38 name@8:12 | fun create(): User
            interface Repo 12:0-14:1 name@12:10 | interface Repo
              method Repo/find 13:4-13:28 name@13:8 | fun find(id: Int): User?
            enum Color 16:0-19:1 name@16:11 | enum class Color
              enum_member Color/RED 17:4-17:7 name@17:4 | RED
              enum_member Color/GREEN 18:4-18:9 name@18:4 | GREEN
            object Registry 21:0-23:1 name@21:7 | object Registry
              property Registry/users 22:4-22:37 name@22:8 | val users
            type_alias Users 25:0-25:28 name@25:10 | typealias Users = List<User>
            function main 27:0-29:1 name@27:4 | fun main()
        "#]],
    );
}

#[test]
fn bom_crlf_and_syntax_errors() {
    check(
        Lang::Rust,
        "\u{feff}fn first() {}\r\nfn second() {}\r\n",
        expect![[r#"
        function first 1:0-1:13 name@1:3 | fn first()
        function second 2:0-2:14 name@2:3 | fn second()
    "#]],
    );
    check(
        Lang::Rust,
        "fn ok() {}\nfn broken( {\n",
        expect![[r#"
        function ok 1:0-1:10 name@1:3 | fn ok()
        syntax error at 2:0
    "#]],
    );
}

/// The skeleton parse and the declaration reader against the whole parse on real
/// code: the pinned Rust corpus (`daemon/benches/rust-corpus/Cargo.lock`'s crates,
/// never cargo's registry, whose contents depend on the machine; a fixed stride of
/// them so the test stays in seconds). Where the whole
/// parse finds errors the three may recover differently, so there the oracle is
/// the whole parse with the failing statements blanked, outside them
/// ([`fast_check::outside_failures`]). The reader must vouch for nearly all clean
/// files, or the first index is slow again.
#[test]
fn skeleton_and_declarations_agree_with_whole_parses_on_vendored_crates() {
    let rust = lean_ctx_testkit::corpus().join("rust");
    let mut files: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(&rust)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs") && p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 1000,
        "expected the pinned Rust corpus in {}",
        rust.display()
    );
    let stride = files.len().div_ceil(1500);
    let (mut compared, mut vouched, mut differ) = (0, 0, Vec::new());
    let (mut failing, mut failing_symbols) = (0, 0);
    for path in files.iter().step_by(stride) {
        let src = std::fs::read(path).unwrap();
        let whole = extract_with(Lang::Rust, &src, Parse::Whole);
        if whole.syntax_error.is_some() {
            failing += 1;
            for how in [Parse::Skeleton, Parse::Declarations] {
                let fast = extract_with(Lang::Rust, &src, how);
                let outside = fast_check::outside_failures(Lang::Rust, &src, &fast);
                if how == Parse::Declarations {
                    failing_symbols += outside.as_ref().map_or(0, |o| o.compared);
                }
                if let Some(first) = outside.and_then(|o| o.difference) {
                    differ.push(format!(
                        "{how:?} (outside failing statements): {}: {first}",
                        path.display()
                    ));
                }
            }
            continue;
        }
        compared += 1;
        let expected = outline(&whole);
        for how in [Parse::Skeleton, Parse::Declarations] {
            if outline(&extract_with(Lang::Rust, &src, how)) != expected {
                differ.push(format!("{how:?}: {}", path.display()));
            }
        }
        let body = crate::bom::strip(&src);
        vouched += usize::from(rust_items::parse(body).is_some());
    }
    assert!(compared >= 500, "only {compared} files compared");
    eprintln!(
        "{compared} files compared, {failing} the grammar fails on \
         ({failing_symbols} of their symbols compared outside the failing statements)"
    );
    assert!(differ.is_empty(), "parses differ in {differ:#?}");
    assert!(
        vouched * 100 >= compared * 90,
        "the declaration reader vouched for only {vouched} of {compared} files"
    );
}

/// Impl headers whose member scope comes from a depth-first search of the type, and
/// items the declaration reader reads without a tree: each must match the whole
/// parse (`check` compares them).
#[test]
fn rust_impl_type_names_and_items_without_a_tree() {
    let src = r#"impl<'a, T> Tr for &'a mut std::vec::Vec<T> { fn a() {} }
impl Tr for (A, B) { fn b() {} }
impl Tr for [T; { N }] { fn c() {} }
impl<S> Fmt<S> for fn(ctx: &Ctx<'_, S>) -> u8 { fn d() {} }
impl Tr for ! { fn e() {} }
impl Tr for () { fn f() {} }
impl !Send for Raw {}
impl PartialEq<Self> for crate::Id where Self: Sized { fn eq(&self, o: &Self) -> bool { true } }
const _: () = { struct Hidden; };
pub(crate) static mut COUNT: usize = 0;
extern "C" { pub fn c_call(x: i32) -> i32; static ERRNO: i32; }
::core::arch::global_asm!("nop");
crate::define! { fn not_a_symbol() {} }
pub enum E<T> { A = 1 << 2, #[default] B(T), C { x: u8 }, }
pub union U { a: u32, b: f32 }
struct Tuple<T>(pub T) where T: Copy;
macro_rules! m { () => {} }
trait Bound: Iterator<Item = u8> + Send where Self: Sized { type Out: Clone; const N: usize; }
"#;
    let whole = extract_with(Lang::Rust, src.as_bytes(), Parse::Whole);
    assert_eq!(
        whole.syntax_error, None,
        "the comparison needs a clean parse"
    );
    let body = src.as_bytes();
    assert!(
        rust_items::parse(body).is_some(),
        "the reader must vouch for it"
    );
    check(
        Lang::Rust,
        src,
        expect![[r#"
            impl impl Tr for &'a mut std::vec::Vec<T> 1:0-1:57 name@1:19 | impl<'a, T> Tr for &'a mut std::vec::Vec<T>
              method Vec/a 1:46-1:55 name@1:49 | fn a()
            impl impl Tr for (A, B) 2:0-2:32 name@2:12 | impl Tr for (A, B)
              method A/b 2:21-2:30 name@2:24 | fn b()
            impl impl Tr for [T; { N }] 3:0-3:36 name@3:12 | impl Tr for [T; { N }]
              method T/c 3:25-3:34 name@3:28 | fn c()
            impl impl Fmt<S> for fn(ctx: &Ctx<'_, S>) -> u8 4:0-4:59 name@4:19 | impl<S> Fmt<S> for fn(ctx: &Ctx<'_, S>) -> u8
              method Ctx/d 4:48-4:57 name@4:51 | fn d()
            impl impl Tr for ! 5:0-5:27 name@5:12 | impl Tr for !
              method !/e 5:16-5:25 name@5:19 | fn e()
            impl impl Tr for () 6:0-6:28 name@6:12 | impl Tr for ()
              method ()/f 6:17-6:26 name@6:20 | fn f()
            impl impl Send for Raw 7:0-7:21 name@7:15 | impl !Send for Raw
            impl impl PartialEq<Self> for crate::Id 8:0-8:96 name@8:25 | impl PartialEq<Self> for crate::Id where Self: Sized
              method Id/eq 8:55-8:94 name@8:58 | fn eq(&self, o: &Self) -> bool
            constant _ 9:0-9:33 name@9:6 | const _: ()
            static COUNT 10:0-10:39 name@10:22 | pub(crate) static mut COUNT: usize
            function c_call 11:13-11:42 name@11:20 | pub fn c_call(x: i32) -> i32;
            static ERRNO 11:43-11:61 name@11:50 | static ERRNO: i32;
            enum E 14:0-14:59 name@14:9 | pub enum E<T>
              enum_member E/A 14:16-14:26 name@14:16 | A = 1 << 2
              enum_member E/B 14:28-14:43 name@14:39 | B(T)
              enum_member E/C 14:45-14:56 name@14:45 | C { x: u8 }
            union U 15:0-15:30 name@15:10 | pub union U
              field U/a 15:14-15:20 name@15:14 | a: u32
              field U/b 15:22-15:28 name@15:22 | b: f32
            struct Tuple 16:0-16:37 name@16:7 | struct Tuple<T>
            macro m 17:0-17:27 name@17:13 | macro_rules! m
            trait Bound 18:0-18:94 name@18:6 | trait Bound: Iterator<Item = u8> + Send where Self: Sized
              type_alias Bound/Out 18:60-18:76 name@18:65 | type Out: Clone;
              constant Bound/N 18:77-18:92 name@18:83 | const N: usize;
        "#]],
    );
}

/// Pathological nesting (a generated file, or an attack) costs symbols past a depth,
/// never the daemon: every reader declines or stops instead of overflowing a stack.
#[test]
fn deep_nesting_is_cut_off_not_a_stack_overflow() {
    // On a thread with the default 2 MiB stack, like the index's.
    fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .expect("no stack overflow")
    }
    let n = 50_000;
    let mods = "mod m {".repeat(n) + &"}".repeat(n);
    let count = small_stack(move || extract(Lang::Rust, mods.as_bytes()).count);
    assert_eq!(count, 64, "symbols down to the depth limit");
    let ty = format!("impl T for {}u8{} {{}}", "Vec<".repeat(n), ">".repeat(n));
    assert_eq!(
        small_stack(move || extract(Lang::Rust, ty.as_bytes()).count),
        1
    );
    let broken = "fn f() {".repeat(n) + "struct";
    small_stack(move || extract(Lang::Rust, broken.as_bytes()).syntax_error);
}

/// The brace languages' skeleton parse against the whole parse on real code nobody
/// here wrote: the conformance corpora (`benches/fetch-conformance.sh`: zod,
/// gson, kotlinx-coroutines), and any directories named in
/// `LEAN_CTX_SKELETON_CORPORA` (`:`-separated; the bigger corpora the speed work
/// was measured on). Every file the whole parse finds clean must give the same
/// outline from the skeleton, and the skeleton lexer must follow nearly every file
/// with braces, or the first index is slow again.
#[test]
fn brace_skeletons_agree_with_whole_parses_on_real_code() {
    let corpus = lean_ctx_testkit::corpus();
    let mut dirs = vec![
        corpus.join("typescript"),
        corpus.join("java"),
        corpus.join("kotlin"),
    ];
    if let Some(extra) = std::env::var_os("LEAN_CTX_SKELETON_CORPORA") {
        dirs.extend(std::env::split_paths(&extra));
    }
    let mut per_lang: std::collections::BTreeMap<Lang, (usize, usize)> = Default::default();
    let (mut differ, mut unfollowed) = (Vec::new(), Vec::new());
    for dir in dirs {
        let files = ignore::WalkBuilder::new(&dir)
            .standard_filters(false)
            .build()
            .filter_map(Result::ok)
            .map(|e| e.into_path())
            .filter(|p| p.is_file());
        for path in files {
            let Some(lang) = Lang::from_path(&path).filter(|l| {
                matches!(
                    l,
                    Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Java | Lang::Kotlin
                )
            }) else {
                continue;
            };
            let src = std::fs::read(&path).unwrap();
            let whole = extract_with(lang, &src, Parse::Whole);
            if whole.syntax_error.is_some() {
                continue;
            }
            let (compared, skeletons) = per_lang.entry(lang).or_default();
            *compared += 1;
            let body = crate::bom::strip(&src);
            let dialect = crate::skeleton_brace::tests::dialect(lang).unwrap();
            let followed = crate::skeleton_brace::scan(dialect, body).is_some();
            *skeletons += usize::from(followed);
            if !followed {
                unfollowed.push(path.display().to_string());
            }
            let expected = outline(&whole);
            for how in [Parse::Skeleton, Parse::Declarations] {
                if outline(&extract_with(lang, &src, how)) != expected {
                    differ.push(format!("{how:?}: {}", path.display()));
                }
            }
        }
    }
    for lang in [Lang::TypeScript, Lang::Java, Lang::Kotlin] {
        let (compared, _) = per_lang.get(&lang).copied().unwrap_or_default();
        assert!(compared >= 20, "only {compared} {lang:?} files compared");
    }
    assert!(differ.is_empty(), "parses differ in {differ:#?}");
    for (lang, (compared, skeletons)) in per_lang {
        assert!(
            skeletons * 100 >= compared * 90,
            "the skeleton lexer followed only {skeletons} of {compared} {lang:?} files; not: {:#?}",
            &unfollowed[..unfollowed.len().min(20)]
        );
    }
}

/// A statement the grammar fails on whose line a clean item shares (ra_ap_parser's
/// `default unsafe impl`: `default unsafe` is an error, `impl T for Foo {` on the same
/// line an impl): the fast paths list what the whole parse recovers, the impl with
/// its method, and the oracle blanks the impl whole with the failing line, rather
/// than leaving its method behind as a free function.
#[test]
fn an_error_sharing_a_line_with_an_item_blanks_the_item_whole() {
    let src = "default unsafe impl T for Foo {\n    default unsafe fn foo() {}\n}\n";
    check(
        Lang::Rust,
        src,
        expect![[r#"
            impl impl T for Foo 1:15-3:1 name@1:26 | impl T for Foo
              method Foo/foo 2:4-2:30 name@2:22 | default unsafe fn foo()
            syntax error at 1:0
        "#]],
    );
    let whole = outline(&extract_with(Lang::Rust, src.as_bytes(), Parse::Whole));
    for how in [Parse::Skeleton, Parse::Declarations] {
        let fast = extract_with(Lang::Rust, src.as_bytes(), how);
        assert_eq!(
            outline(&fast),
            whole,
            "{how:?} and the whole parse's recovery"
        );
        let outside = fast_check::outside_failures(Lang::Rust, src.as_bytes(), &fast)
            .expect("a clean text is reached");
        assert_eq!(
            outside.difference, None,
            "{how:?} outside the failing statements"
        );
    }
}

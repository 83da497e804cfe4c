//! Candidate tests out of a model's reply, and the test module with the kept ones: each
//! candidate is one `test*` method of a test class in the reply's code, moved into a
//! model-written class after the forged ones (the reply's imports go before the first test
//! class, where the module's imports are). Tests of a reply class without a fixture share the
//! task's `<Class>TestLLM`; a reply class with one (`setUp`, `tearDown`, `setUpClass`, helper
//! methods) becomes a class of its own, `<Class>TestLLM<round>` (`_2`, `_3`… for further ones
//! of the reply), that carries the fixture with its kept tests (a test that needs its `setUp`
//! fails without it).

use std::collections::BTreeSet;

use crate::analysis::extract::extract_code;
use crate::analysis::parse::parse_module;

/// Most candidates read from one reply (the rest are ignored, and counted).
pub const MAX_PER_REPLY: usize = 20;

/// One proposed test method.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The model-written test class it goes into.
    pub class: String,
    /// The method's name (unique among the model-written tests).
    pub name: String,
    /// The method's source, indented for the class body.
    pub source: String,
    /// Import lines of the reply's module the test may need.
    pub imports: Vec<String>,
    /// The reply class's other methods (decorators included), indented for the class body:
    /// empty for the shared class.
    pub fixture: String,
}

impl Candidate {
    /// The test's id in the module (`Class.method`).
    pub fn id(&self) -> String {
        format!("{}.{}", self.class, self.name)
    }
}

/// What a reply held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Proposal {
    pub candidates: Vec<Candidate>,
    /// Test methods that do not parse on their own (dropped as `does_not_parse`).
    pub unparsable: Vec<String>,
    /// Candidates beyond [`MAX_PER_REPLY`].
    pub ignored: usize,
}

/// The class holding model-written tests that bring no fixture.
pub fn shared_class(class_name: &str) -> String {
    format!("{class_name}TestLLM")
}

/// The test methods of `reply` (a code block, or code without fences) for `class_name`, asked
/// in `round`; an error says why the reply holds none. `taken`: names of the model-written
/// tests kept so far.
pub fn read(
    reply: &str,
    class_name: &str,
    round: u32,
    taken: &BTreeSet<String>,
) -> Result<Proposal, String> {
    let code = extract_code(reply);
    if code.trim().is_empty() {
        return Err("the reply holds no code".into());
    }
    let module = parse_module(&code);
    let imports: Vec<String> = code
        .lines()
        .filter(|l| l.starts_with("import ") || l.starts_with("from "))
        .filter(|l| !l.contains(" __future__ "))
        // The class under test is a global of the module: importing it would shadow it.
        .filter(|l| {
            !l.split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == class_name)
        })
        .map(|l| l.trim_end().to_string())
        .collect();
    let mut names = taken.clone();
    let mut p = Proposal::default();
    let mut fixtures = 0;
    for class in module.classes.iter().filter(|c| c.name != class_name) {
        let fixture: String = class
            .methods
            .iter()
            .filter(|m| !m.name.starts_with("test"))
            .filter_map(|m| method_source(&code, m.start_byte, m.end_byte))
            .collect::<Vec<_>>()
            .join("\n");
        let fixture = if parse_module(&format!("class _T:\n{fixture}")).parses() {
            fixture
        } else {
            String::new()
        };
        let target = if fixture.is_empty() {
            shared_class(class_name)
        } else {
            fixtures += 1;
            match fixtures {
                1 => format!("{}{round}", shared_class(class_name)),
                k => format!("{}{round}_{k}", shared_class(class_name)),
            }
        };
        for m in class.methods.iter().filter(|m| m.name.starts_with("test")) {
            if p.candidates.len() >= MAX_PER_REPLY {
                p.ignored += 1;
                continue;
            }
            let Some(source) = method_source(&code, m.start_byte, m.end_byte) else {
                p.unparsable.push(m.name.clone());
                continue;
            };
            let alone = format!("class _T:\n{source}");
            if !parse_module(&alone).parses() {
                p.unparsable.push(m.name.clone());
                continue;
            }
            let name = unique(&m.name, &mut names);
            let source = if name == m.name {
                source
            } else {
                source.replacen(&format!("def {}(", m.name), &format!("def {name}("), 1)
            };
            p.candidates.push(Candidate {
                class: target.clone(),
                name,
                source,
                imports: imports.clone(),
                fixture: fixture.clone(),
            });
        }
    }
    if p.candidates.is_empty() && p.unparsable.is_empty() {
        return Err(if module.parses() {
            "the reply's code defines no test method".into()
        } else {
            "the reply's code does not parse".into()
        });
    }
    Ok(p)
}

fn unique(name: &str, taken: &mut BTreeSet<String>) -> String {
    let mut n = name.to_string();
    let mut k = 2;
    while taken.contains(&n) {
        n = format!("{name}_{k}");
        k += 1;
    }
    taken.insert(n.clone());
    n
}

/// The method from its line's start to `end`, re-indented to four spaces.
fn method_source(code: &str, start: usize, end: usize) -> Option<String> {
    let line_start = code.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let indent = code.get(line_start..start)?;
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let text = code.get(line_start..end)?;
    let mut out = String::new();
    for l in text.split('\n') {
        match l.strip_prefix(indent) {
            Some(rest) if !rest.trim().is_empty() => {
                out.push_str("    ");
                out.push_str(rest.trim_end());
            }
            // A line less indented than the `def` inside it is blank, or a string's line.
            _ if l.trim().is_empty() => {}
            _ => out.push_str(l.trim_end()),
        }
        out.push('\n');
    }
    Some(out)
}

/// The model-written classes holding `tests`, in the order of their first test.
pub fn class_source(tests: &[&Candidate]) -> String {
    let mut order: Vec<&str> = Vec::new();
    for t in tests {
        if !order.contains(&t.class.as_str()) {
            order.push(&t.class);
        }
    }
    let mut src = String::new();
    for class in order {
        let members: Vec<&&Candidate> = tests.iter().filter(|t| t.class == class).collect();
        if !src.is_empty() {
            src.push_str("\n\n");
        }
        src.push_str(&format!(
            "class {class}(_FreshDir):\n    \"\"\"Model-written tests (forge --llm): each passes on the reference every time\n    \
             and adds coverage or kills a mutant the forged tests left alive.\"\"\"\n"
        ));
        let fixture = &members[0].fixture;
        if !fixture.is_empty() {
            src.push('\n');
            src.push_str(fixture);
        }
        for t in members {
            src.push('\n');
            src.push_str(&t.source);
        }
    }
    src
}

/// `module` (the forged tests) with the model-written class appended and its tests' imports
/// placed before the first test class. `first_class`: where that class starts in `module`.
pub fn module_with(module: &str, first_class: usize, tests: &[&Candidate]) -> String {
    let present: BTreeSet<&str> = module.lines().collect();
    let mut imports: Vec<&str> = Vec::new();
    for line in tests.iter().flat_map(|t| t.imports.iter()) {
        if !present.contains(line.as_str()) && !imports.contains(&line.as_str()) {
            imports.push(line);
        }
    }
    let at = first_class.min(module.len());
    let (head, rest) = module.split_at(at);
    let mut out = head.to_string();
    for i in &imports {
        out.push_str(i);
        out.push('\n');
    }
    if !imports.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(rest.trim_end());
    out.push_str("\n\n\n");
    out.push_str(&class_source(tests));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_methods_are_read_renamed_and_placed() {
        let reply = "Here you go:\n```python\nimport math\nimport unittest\nfrom a_module import A\n\nclass ATestLLM(unittest.TestCase):\n    def test_f(self):\n        x = \'\'\'\nkeep\n\'\'\'\n        self.assertEqual(A().f(9), 1)\n\n    def test_g(self):\n        self.assertEqual(math.floor(A().f(1)), 2)\n```\n";
        let taken: BTreeSet<String> = ["test_f".to_string()].into();
        let p = read(reply, "A", 1, &taken).unwrap();
        let names: Vec<&str> = p.candidates.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["test_f_2", "test_g"]);
        assert_eq!(
            p.candidates[0].id(),
            "ATestLLM.test_f_2",
            "no fixture: the shared class"
        );
        assert!(
            p.candidates[0]
                .source
                .starts_with("    def test_f_2(self):\n")
        );
        assert!(
            p.candidates[0].source.contains("\nkeep\n"),
            "{}",
            p.candidates[0].source
        );
        assert_eq!(p.candidates[1].imports, ["import math", "import unittest"]);
        let module = "import unittest\n\nclass _FreshDir(unittest.TestCase):\n    pass\n\n\nclass ATestF(_FreshDir):\n    pass\n";
        let first = module.find("class ATestF").unwrap();
        let refs: Vec<&Candidate> = p.candidates.iter().collect();
        let out = module_with(module, first, &refs);
        assert!(out.contains("import math\n\n\nclass ATestF"), "{out}");
        assert_eq!(out.matches("import unittest").count(), 1, "{out}");
        assert!(out.contains("class ATestLLM(_FreshDir):"), "{out}");
        assert!(parse_module(&out).parses(), "{out}");
    }

    #[test]
    fn a_reply_class_with_a_fixture_keeps_it_in_a_class_of_its_own() {
        let reply = "```python\nimport unittest\n\nclass ATestLLM(unittest.TestCase):\n    def setUp(self):\n        self.a = A()\n\n    @classmethod\n    def setUpClass(cls):\n        cls.n = 3\n\n    def _make(self, k):\n        return A(k)\n\n    def test_f(self):\n        self.assertEqual(self.a.f(self.n), 1)\n\n\nclass More(unittest.TestCase):\n    def setUp(self):\n        self.b = A()\n\n    def test_h(self):\n        self.assertTrue(self.b)\n\n\nclass Plain(unittest.TestCase):\n    def test_g(self):\n        self.assertEqual(A().f(1), 2)\n```";
        let p = read(reply, "A", 2, &BTreeSet::new()).unwrap();
        let ids: Vec<String> = p.candidates.iter().map(Candidate::id).collect();
        assert_eq!(
            ids,
            ["ATestLLM2.test_f", "ATestLLM2_2.test_h", "ATestLLM.test_g"]
        );
        let fixture = &p.candidates[0].fixture;
        assert!(
            fixture.contains("    def setUp(self):\n        self.a = A()\n"),
            "{fixture}"
        );
        assert!(
            fixture.contains("    @classmethod\n    def setUpClass(cls):"),
            "{fixture}"
        );
        assert!(fixture.contains("    def _make(self, k):"), "{fixture}");
        assert!(!fixture.contains("test_f"), "{fixture}");
        assert!(p.candidates[2].fixture.is_empty());
        let module = "import unittest\n\nclass _FreshDir(unittest.TestCase):\n    pass\n\n\nclass ATestF(_FreshDir):\n    pass\n";
        let first = module.find("class ATestF").unwrap();
        // Kept: the fixture class's test and the plain one (not `test_h`).
        let refs: Vec<&Candidate> = vec![&p.candidates[0], &p.candidates[2]];
        let out = module_with(module, first, &refs);
        assert!(parse_module(&out).parses(), "{out}");
        let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s} in {out}"));
        assert!(at("class ATestLLM2(_FreshDir):") < at("    def setUp(self):\n        self.a"));
        assert!(at("    def setUp(self):\n        self.a") < at("def test_f(self)"));
        assert!(at("def test_f(self)") < at("class ATestLLM(_FreshDir):"));
        assert!(at("class ATestLLM(_FreshDir):") < at("def test_g(self)"));
        assert!(!out.contains("self.b"), "{out}");
    }

    #[test]
    fn replies_without_tests_say_why() {
        let none = BTreeSet::new();
        assert_eq!(
            read("I cannot help with that.", "A", 1, &none).unwrap_err(),
            "the reply holds no code"
        );
        assert_eq!(
            read("", "A", 1, &none).unwrap_err(),
            "the reply holds no code"
        );
        // The class under test pasted back is not a test class.
        let pasted = "```python\nclass A:\n    def test_mode(self):\n        return 1\n```";
        assert!(read(pasted, "A", 1, &none).is_err());
    }
}

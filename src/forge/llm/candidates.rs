//! Candidate tests out of a model's reply, and the test module with the kept ones: each
//! candidate is one `test*` method of a test class in the reply's code, moved into the task's
//! own model-written class `<Class>TestLLM` (after the forged classes; the reply's imports go
//! before the first test class, where the module's imports are).

use std::collections::BTreeSet;

use crate::analysis::extract::extract_code;
use crate::analysis::parse::parse_module;

/// Most candidates read from one reply (the rest are ignored, and counted).
pub const MAX_PER_REPLY: usize = 20;

/// One proposed test method.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The method's name in `<Class>TestLLM` (made unique).
    pub name: String,
    /// The method's source, indented for the class body.
    pub source: String,
    /// Import lines of the reply's module the test may need.
    pub imports: Vec<String>,
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

/// The test methods of `reply` (a code block, or code without fences) for `class_name`; an
/// error says why the reply holds none. `taken`: names already in the model-written class.
pub fn read(reply: &str, class_name: &str, taken: &BTreeSet<String>) -> Result<Proposal, String> {
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
    for class in module.classes.iter().filter(|c| c.name != class_name) {
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
                name,
                source,
                imports: imports.clone(),
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

/// The model-written class holding `tests`.
pub fn class_source(class_name: &str, tests: &[&Candidate]) -> String {
    let mut src = format!(
        "class {class_name}TestLLM(_FreshDir):\n    \"\"\"Model-written tests (forge --llm): each passes on the reference every time\n    \
         and adds coverage or kills a mutant the forged tests left alive.\"\"\"\n"
    );
    for t in tests {
        src.push('\n');
        src.push_str(&t.source);
    }
    src
}

/// `module` (the forged tests) with the model-written class appended and its tests' imports
/// placed before the first test class. `first_class`: where that class starts in `module`.
pub fn module_with(
    module: &str,
    first_class: usize,
    class_name: &str,
    tests: &[&Candidate],
) -> String {
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
    out.push_str(&class_source(class_name, tests));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_methods_are_read_renamed_and_placed() {
        let reply = "Here you go:\n```python\nimport math\nimport unittest\nfrom a_module import A\n\nclass ATestLLM(unittest.TestCase):\n    def setUp(self):\n        self.a = A()\n\n    def test_f(self):\n        x = '''\nkeep\n'''\n        self.assertEqual(A().f(9), 1)\n\n    def test_g(self):\n        self.assertEqual(math.floor(A().f(1)), 2)\n```\n";
        let taken: BTreeSet<String> = ["test_f".to_string()].into();
        let p = read(reply, "A", &taken).unwrap();
        let names: Vec<&str> = p.candidates.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["test_f_2", "test_g"], "setUp is not a test");
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
        let out = module_with(module, first, "A", &refs);
        assert!(out.contains("import math\n\n\nclass ATestF"), "{out}");
        assert_eq!(out.matches("import unittest").count(), 1, "{out}");
        assert!(out.contains("class ATestLLM(_FreshDir):"), "{out}");
        assert!(parse_module(&out).parses(), "{out}");
    }

    #[test]
    fn replies_without_tests_say_why() {
        let none = BTreeSet::new();
        assert_eq!(
            read("I cannot help with that.", "A", &none).unwrap_err(),
            "the reply holds no code"
        );
        assert_eq!(read("", "A", &none).unwrap_err(), "the reply holds no code");
        // The class under test pasted back is not a test class.
        let pasted = "```python\nclass A:\n    def test_mode(self):\n        return 1\n```";
        assert!(read(pasted, "A", &none).is_err());
    }
}

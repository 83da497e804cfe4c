//! Writing a suite: the explored sequences as a readable unittest module of concrete calls and
//! assertions, grouped like ClassEval's (one test class per method, named `<Class>Test<Method>`,
//! holding the sequences that end in a call to it; `<Class>TestMain` for sequences over three
//! or more methods and for the constructor alone). No randomness, no property library: the
//! module runs in classlab's harness and in any other. What a test leaves in its directory goes
//! when it ends (`_FreshDir`, whatever `setUp` a test class brings), so files one test writes
//! never reach another; the test does not move, so the code (in a process of its own under the
//! split harness) and the test name the same files.
//!
//! Comparisons (docs/forge.md): values by `assertEqual`; floats rounded to 6 decimals (a lone
//! float by `assertAlmostEqual(places=6)`, containers through `_approx`); dict key and item
//! views as sets, dict values sorted; timestamps of the current time masked (`_noclock`);
//! exceptions by their nearest builtin type
//! (`assertRaises`); state by the public fields `__init__` declares, after each step that
//! changed them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::explored::{Arg, Assertion, Call, Explored, Sequence};

/// One written test and what it checks, step by step (the counterexample display reads it).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct TestTrace {
    /// `TestClass.test_name`.
    pub id: String,
    /// Per step: the call as written, and what the reference did.
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Step {
    pub call: String,
    pub expected: String,
}

/// A written suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    pub module: String,
    /// Test classes in module order: (name, method it tests or `None` for the class-level one,
    /// source of the class).
    pub classes: Vec<(String, Option<String>, String)>,
    pub traces: Vec<TestTrace>,
}

/// The helpers every written module starts with (comparisons, fresh directories, the
/// counterexample a failing test names).
pub(crate) const HELPERS: &str = include_str!("../../assets/forge/forge_helpers.py");

fn camel(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The test class a sequence belongs to: the method its last call calls, unless it calls three
/// or more distinct methods (or none): then the class-level one.
/// Field settings (`obj.x = v`) are not calls: they neither count nor name the group.
fn group_of(seq: &Sequence) -> Option<&str> {
    let calls = || seq.calls.iter().filter(|c| !c.set);
    let mut distinct: Vec<&str> = calls().map(|c| c.method.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() >= 3 {
        return None;
    }
    calls().next_back().map(|c| c.method.as_str())
}

/// Write the suite for `class_name`; `kinds` says which methods are static, class methods or
/// properties; `methods` is the skeleton's order.
pub fn write(
    class_name: &str,
    methods: &[String],
    kinds: &BTreeMap<String, &str>,
    tests: &[Explored],
) -> Suite {
    let mut groups: BTreeMap<Option<&str>, Vec<&Explored>> = BTreeMap::new();
    for t in tests {
        groups.entry(group_of(&t.seq)).or_default().push(t);
    }
    let mut order: Vec<Option<&str>> = methods
        .iter()
        .map(|m| Some(m.as_str()))
        .filter(|m| groups.contains_key(m))
        .collect();
    let rest: Vec<Option<&str>> = groups
        .keys()
        .filter(|k| k.is_some() && !order.contains(k))
        .copied()
        .collect();
    order.extend(rest);
    if groups.contains_key(&None) {
        order.push(None);
    }
    let mut module = String::from(HELPERS);
    let mut classes = Vec::new();
    let mut traces = Vec::new();
    for g in order {
        let name = match g {
            Some(m) => format!("{class_name}Test{}", camel(m)),
            None => format!("{class_name}TestMain"),
        };
        let mut src = format!("class {name}(_FreshDir):\n");
        for (k, t) in groups[&g].iter().enumerate() {
            let test = format!("test_{}_{}", g.unwrap_or("main").trim_matches('_'), k + 1);
            let (body, steps) = render_test(class_name, kinds, t);
            let _ = write!(src, "\n    def {test}(self):\n{body}");
            traces.push(TestTrace {
                id: format!("{name}.{test}"),
                steps,
            });
        }
        module.push_str("\n\n");
        module.push_str(&src);
        classes.push((name, g.map(String::from), src));
    }
    Suite {
        module,
        classes,
        traces,
    }
}

fn var(inst: usize) -> String {
    if inst == 0 {
        "obj".into()
    } else {
        format!("other{inst}")
    }
}

struct Render<'a> {
    class_name: &'a str,
    lines: Vec<String>,
}

impl Render<'_> {
    /// The expression of an argument; fresh instances are built on lines of their own first.
    fn arg(&mut self, a: &Arg) -> String {
        match a {
            Arg::Lit { lit } => lit.clone(),
            Arg::Ref { step } => format!("r{step}"),
            Arg::New { new, args } => {
                let args: Vec<String> = args.iter().map(|x| self.arg(x)).collect();
                self.lines.push(format!(
                    "{} = {}({})",
                    var(*new),
                    self.class_name,
                    args.join(", ")
                ));
                var(*new)
            }
            Arg::List { list } => format!("[{}]", self.args(list).join(", ")),
            Arg::Set { set } if set.is_empty() => "set()".into(),
            Arg::Set { set } => format!("{{{}}}", self.args(set).join(", ")),
            Arg::Tuple { tuple } if tuple.len() == 1 => format!("({},)", self.arg(&tuple[0])),
            Arg::Tuple { tuple } => format!("({})", self.args(tuple).join(", ")),
            Arg::Dict { dict } => {
                let items: Vec<String> = dict
                    .iter()
                    .map(|(k, v)| format!("{}: {}", self.arg(k), self.arg(v)))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
            Arg::Obj { obj } => {
                let attrs: Vec<String> = obj
                    .iter()
                    .map(|(k, v)| format!("{k}={}", self.arg(v)))
                    .collect();
                format!("_Obj({})", attrs.join(", "))
            }
            Arg::Fn { returns } => format!("(lambda *a, **k: {})", self.arg(returns)),
        }
    }

    fn args(&mut self, list: &[Arg]) -> Vec<String> {
        list.iter().map(|a| self.arg(a)).collect()
    }

    fn call_args(&mut self, args: &[Arg], kwargs: &BTreeMap<String, Arg>) -> String {
        let mut parts = self.args(args);
        for (k, v) in kwargs {
            let v = self.arg(v);
            parts.push(format!("{k}={v}"));
        }
        parts.join(", ")
    }
}

fn compare(actual: &str, src: &str, norm: &str) -> String {
    match norm {
        "approx" if is_float_literal(src) => {
            format!("self.assertAlmostEqual({actual}, {src}, places=6)")
        }
        "approx" => format!("self.assertEqual(_approx({actual}), {src})"),
        "noclock" => format!("self.assertEqual(_noclock({actual}), {src})"),
        "set" => format!("self.assertEqual(set({actual}), {src})"),
        "sorted" => format!("self.assertEqual(sorted({actual}), {src})"),
        _ => format!("self.assertEqual({actual}, {src})"),
    }
}

fn is_float_literal(src: &str) -> bool {
    let s = src.trim_start_matches('-');
    s.parse::<f64>().is_ok() || s == "float('inf')"
}

/// Which steps' results later calls use.
fn referenced(seq: &Sequence) -> Vec<usize> {
    fn walk(a: &Arg, out: &mut Vec<usize>) {
        match a {
            Arg::Ref { step } => out.push(*step),
            Arg::New { args, .. } | Arg::List { list: args } => {
                args.iter().for_each(|x| walk(x, out))
            }
            Arg::Set { set } => set.iter().for_each(|x| walk(x, out)),
            Arg::Tuple { tuple } => tuple.iter().for_each(|x| walk(x, out)),
            Arg::Dict { dict } => dict.iter().for_each(|(k, v)| {
                walk(k, out);
                walk(v, out)
            }),
            Arg::Obj { obj } => obj.iter().for_each(|(_, v)| walk(v, out)),
            Arg::Fn { returns } => walk(returns, out),
            Arg::Lit { .. } => {}
        }
    }
    let mut out = Vec::new();
    for c in &seq.calls {
        c.args
            .iter()
            .chain(c.kwargs.values())
            .for_each(|a| walk(a, &mut out));
    }
    out
}

fn call_expr(r: &mut Render<'_>, kinds: &BTreeMap<String, &str>, c: &Call) -> String {
    if c.set {
        let value = c.args.first().map_or_else(|| "None".into(), |a| r.arg(a));
        return format!("obj.{} = {value}", c.method);
    }
    match kinds.get(&c.method).copied().unwrap_or("method") {
        "property" => format!("obj.{}", c.method),
        "static" | "class" => {
            let a = r.call_args(&c.args, &c.kwargs);
            format!("{}.{}({a})", r.class_name, c.method)
        }
        _ => {
            let a = r.call_args(&c.args, &c.kwargs);
            format!("obj.{}({a})", c.method)
        }
    }
}

/// The body of one test (indented 8) and its steps.
fn render_test(
    class_name: &str,
    kinds: &BTreeMap<String, &str>,
    t: &Explored,
) -> (String, Vec<Step>) {
    let mut r = Render {
        class_name,
        lines: Vec::new(),
    };
    let used = referenced(&t.seq);
    let mut steps = Vec::new();
    let n_steps = t.seq.calls.len() + 1;
    for step in 0..n_steps {
        let expr = if step == 0 {
            let a = r.call_args(&t.seq.init, &t.seq.init_kwargs);
            format!("{class_name}({a})")
        } else {
            call_expr(&mut r, kinds, &t.seq.calls[step - 1])
        };
        let here: Vec<&Assertion> = t.assertions.iter().filter(|a| a.step() == step).collect();
        let raises = here.iter().find_map(|a| match a {
            Assertion::Raises { exc, .. } => Some(exc.clone()),
            _ => None,
        });
        let returns = here.iter().find_map(|a| match a {
            Assertion::Returns { src, norm, .. } => Some((src.clone(), norm.clone())),
            _ => None,
        });
        let target = if step == 0 {
            "obj".to_string()
        } else {
            format!("r{step}")
        };
        let mut expected = Vec::new();
        if let Some(exc) = &raises {
            r.lines.push(format!("with self.assertRaises({exc}):"));
            r.lines.push(format!("    {expr}"));
            expected.push(format!("raises {exc}"));
        } else if step > 0 && t.seq.calls[step - 1].set {
            r.lines.push(expr.clone());
        } else if step == 0 || returns.is_some() || used.contains(&step) {
            r.lines.push(format!("{target} = {expr}"));
        } else {
            r.lines.push(expr.clone());
        }
        if let Some((src, norm)) = &returns {
            r.lines.push(compare(&target, src, norm));
            expected.push(format!("returns {src}"));
        } else if raises.is_none() && step > 0 && !t.seq.calls[step - 1].set {
            expected.push("returns (not compared)".into());
        }
        for a in &here {
            if let Assertion::Field {
                inst,
                field,
                src,
                norm,
                ..
            } = a
            {
                r.lines
                    .push(compare(&format!("{}.{field}", var(*inst)), src, norm));
                expected.push(format!("{}.{field} == {src}", var(*inst)));
            }
        }
        steps.push(Step {
            call: expr,
            expected: expected.join("; "),
        });
        if step == 0 && raises.is_some() {
            break;
        }
    }
    let mut body = String::new();
    for l in &r.lines {
        let _ = writeln!(body, "        {l}");
    }
    (body, steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explored(json: &str) -> Explored {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn writes_calls_assertions_and_groups() {
        let t = explored(
            r#"{"seq": {"init": [{"lit": "10"}], "calls": [
                  {"method": "deposit", "args": [{"lit": "5"}]},
                  {"method": "transfer", "args": [{"new": 1, "args": []}, {"lit": "3"}]},
                  {"method": "withdraw", "args": [{"lit": "-1"}]}]},
                "trace": [],
                "assertions": [
                  {"kind": "field", "step": 0, "inst": 0, "field": "balance", "src": "10"},
                  {"kind": "returns", "step": 1, "src": "15", "norm": ""},
                  {"kind": "ok", "step": 2},
                  {"kind": "field", "step": 2, "inst": 1, "field": "balance", "src": "3"},
                  {"kind": "raises", "step": 3, "exc": "ValueError"}]}"#,
        );
        let simple = explored(
            r#"{"seq": {"init": [], "calls": [{"method": "view_balance", "args": []}]},
                "trace": [], "assertions": [{"kind": "returns", "step": 1, "src": "0.5",
                "norm": "approx"}]}"#,
        );
        let methods = vec!["deposit".to_string(), "view_balance".to_string()];
        let suite = write("BankAccount", &methods, &BTreeMap::new(), &[t, simple]);
        let names: Vec<&str> = suite.classes.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names, ["BankAccountTestViewBalance", "BankAccountTestMain"]);
        let main = &suite.classes[1].2;
        assert!(main.contains("        obj = BankAccount(10)\n        self.assertEqual(obj.balance, 10)\n        r1 = obj.deposit(5)\n        self.assertEqual(r1, 15)\n        other1 = BankAccount()\n        obj.transfer(other1, 3)\n        self.assertEqual(other1.balance, 3)\n        with self.assertRaises(ValueError):\n            obj.withdraw(-1)\n"), "{main}");
        assert!(
            suite
                .module
                .contains("self.assertAlmostEqual(r1, 0.5, places=6)")
        );
        assert_eq!(suite.traces[1].steps[3].expected, "raises ValueError");
        assert_eq!(suite.traces[1].id, "BankAccountTestMain.test_main_1");
    }

    #[test]
    fn a_field_setting_is_a_statement_that_neither_groups_nor_counts() {
        let t = explored(
            r#"{"seq": {"init": [], "calls": [
                  {"method": "playlist", "set": true, "args": [{"list": [{"lit": "'a'"}]}]},
                  {"method": "current_song", "set": true, "args": [{"lit": "'a'"}]},
                  {"method": "switch_song", "args": []}]},
                "trace": [],
                "assertions": [{"kind": "returns", "step": 3, "src": "False", "norm": ""}]}"#,
        );
        let methods = vec!["switch_song".to_string()];
        let suite = write("MusicPlayer", &methods, &BTreeMap::new(), &[t]);
        assert_eq!(suite.classes[0].0, "MusicPlayerTestSwitchSong");
        assert!(
            suite.module.contains(
                "        obj = MusicPlayer()
        obj.playlist = ['a']
        obj.current_song = 'a'
        r3 = obj.switch_song()
        self.assertEqual(r3, False)
"
            ),
            "{}",
            suite.module
        );
        let steps = &suite.traces[0].steps;
        assert_eq!(steps[2].call, "obj.current_song = 'a'");
        assert_eq!(steps[2].expected, "");
    }

    #[test]
    fn a_raising_constructor_ends_the_test() {
        let t = explored(
            r#"{"seq": {"init": [{"lit": "-1"}], "calls": []}, "trace": [],
                "assertions": [{"kind": "raises", "step": 0, "exc": "ValueError"}]}"#,
        );
        let suite = write("A", &[], &BTreeMap::new(), &[t]);
        assert!(
            suite
                .module
                .contains("        with self.assertRaises(ValueError):\n            A(-1)\n")
        );
    }
}

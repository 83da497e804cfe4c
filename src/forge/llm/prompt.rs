//! The prompt of one `forge --llm` round (`assets/prompts/forge-tests.md`): the reference,
//! the forged tests so far, and what they still miss, named as source lines — untaken branch
//! arcs, unexecuted lines, and up to [`MAX_MUTANTS`] surviving mutants with their diffs.

use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value as Jinja, context};
use serde_json::Value;

use crate::llm::Message;

const TEMPLATE: &str = include_str!("../../../assets/prompts/forge-tests.md");

/// Surviving mutants named in one prompt (the rest are counted).
pub const MAX_MUTANTS: usize = 10;
/// Untaken arcs and unexecuted lines named in one prompt.
const MAX_GAPS: usize = 40;

/// What the suite still misses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gaps {
    /// coverage.py's missing arcs (a negative target: the exit of the code object starting
    /// on that line).
    pub arcs: Vec<(i64, i64)>,
    /// Statements never executed.
    pub lines: Vec<usize>,
    /// Survivors as rigor lists them: `{op, line, before, after}`.
    pub mutants: Vec<Value>,
}

impl Gaps {
    pub fn is_empty(&self) -> bool {
        self.arcs.is_empty() && self.lines.is_empty() && self.mutants.is_empty()
    }
}

fn source_line(reference: &str, line: i64) -> String {
    usize::try_from(line)
        .ok()
        .and_then(|l| reference.lines().nth(l.checked_sub(1)?))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The messages of round `round` (1-based) for `class_name`.
pub fn render(
    class_name: &str,
    reference: &str,
    tests: &str,
    gaps: &Gaps,
    round: u32,
) -> anyhow::Result<Vec<Message>> {
    let (system, user) = split(TEMPLATE)?;
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()?,
    );
    env.add_template("system", system)?;
    env.add_template("user", user)?;
    let arcs: Vec<Jinja> = gaps
        .arcs
        .iter()
        .take(MAX_GAPS)
        .map(|&(from, to)| {
            context! {
                from, to,
                from_src => source_line(reference, from),
                to_src => source_line(reference, to),
            }
        })
        .collect();
    let lines: Vec<Jinja> = gaps
        .lines
        .iter()
        .take(MAX_GAPS.saturating_sub(arcs.len()))
        .map(|&l| context! { line => l, src => source_line(reference, i64::try_from(l).unwrap_or(0)) })
        .collect();
    let text = |v: &Value, k: &str| match &v[k] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mutants: Vec<Jinja> = gaps
        .mutants
        .iter()
        .take(MAX_MUTANTS)
        .map(|m| {
            context! {
                line => text(m, "line"), op => text(m, "op"),
                before => text(m, "before").trim().to_string(),
                after => text(m, "after").trim().to_string(),
            }
        })
        .collect();
    let ctx = context! {
        class_name,
        reference => reference.trim_end(),
        tests => tests.trim(),
        round,
        arcs,
        lines,
        mutants,
        more_mutants => gaps.mutants.len().saturating_sub(MAX_MUTANTS),
        helpers => "`_FreshDir` (a TestCase giving each test a fresh working directory), `_approx` and `_Obj`",
    };
    let mut out = Vec::new();
    let system = env.get_template("system")?.render(&ctx)?;
    if !system.trim().is_empty() {
        out.push(Message::system(system.trim()));
    }
    out.push(Message::user(
        env.get_template("user")?.render(&ctx)?.trim(),
    ));
    Ok(out)
}

/// The template's system and user parts (after the notes).
fn split(text: &str) -> anyhow::Result<(&str, &str)> {
    let (_, rest) = text
        .split_once("---system---\n")
        .ok_or_else(|| anyhow::anyhow!("assets/prompts/forge-tests.md: no ---system--- line"))?;
    rest.split_once("---user---\n")
        .ok_or_else(|| anyhow::anyhow!("assets/prompts/forge-tests.md: no ---user--- line"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_prompt_names_arcs_lines_and_mutants_as_source() {
        let reference = "class A:\n    def f(self, x):\n        if x > 3:\n            return 1\n        return 2\n";
        let gaps = Gaps {
            arcs: vec![(3, 4), (2, -2)],
            lines: vec![4],
            mutants: (0..12)
                .map(|i| json!({"op": "ROR", "line": 3, "before": "if x > 3:", "after": format!("if x >= {i}:")}))
                .collect(),
        };
        let m = render(
            "A",
            reference,
            "class ATestF(_FreshDir):\n    pass",
            &gaps,
            1,
        )
        .unwrap();
        assert_eq!(m.len(), 2);
        let user = &m[1].content;
        assert!(
            user.contains("from line 3 (`if x > 3:`) to line 4 (`return 1`)"),
            "{user}"
        );
        assert!(
            user.contains("the exit of the function at line 2"),
            "{user}"
        );
        assert!(user.contains("- line 4: `return 1`"), "{user}");
        assert!(user.contains("`if x > 3:` becomes `if x >= 9:`"), "{user}");
        assert!(!user.contains("if x >= 10:"), "at most ten mutants: {user}");
        assert!(user.contains("and 2 more"), "{user}");
        assert!(
            user.contains("class `ATestLLM(unittest.TestCase)`"),
            "{user}"
        );
        // Deterministic: replay compares prompts.
        assert_eq!(
            render("A", reference, "x", &gaps, 1).unwrap(),
            render("A", reference, "x", &gaps, 1).unwrap()
        );
    }
}

//! The mutation operators (docs/rigor.md defines each). Scores are comparable only across the
//! same operator set, so the set and the generator's version enter every result's key.

use serde::{Deserialize, Serialize};

/// One kind of small change to the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// A simple statement becomes `pass`.
    StatementDeletion,
    /// `return e` → `return None`; a returned bool → its opposite; a returned non-empty
    /// container → an empty one of the same kind.
    ReturnValue,
    /// A number n → n + 1; a string s → `"XX" s "XX"` (empty → `"XX"`); `True` ↔ `False`.
    Constant,
    /// `+` ↔ `-`, `*` ↔ `/`, `//` → `/`, `%` → `*`, `**` → `*`, `<<` ↔ `>>`, `&` ↔ `|`,
    /// `^` → `&`, `@` → `*` (in expressions and augmented assignments).
    Arithmetic,
    /// `==` ↔ `!=`, `<` ↔ `>`, `<=` ↔ `>=`, `is` ↔ `is not`, `in` ↔ `not in`.
    Comparison,
    /// `<` ↔ `<=`, `>` ↔ `>=`.
    Boundary,
    /// `and` ↔ `or`.
    Boolean,
    /// A unary operator removed: `not x` → `x`, `-x` → `x`, `~x` → `x`, `+x` → `x`.
    Unary,
    /// The condition of `if`, `elif`, `while` or a conditional expression negated:
    /// `c` → `not (c)`.
    Negation,
    /// `break` ↔ `continue`.
    BreakContinue,
    /// An `except` handler's body becomes `raise`: the exception is no longer handled.
    ExceptionHandler,
    /// An assignment to `self.a` assigns `self.b` instead, `b` another attribute the class
    /// assigns (the next one in order of first assignment).
    SelfAttribute,
    /// A call `self.m(...)` calls `self.n(...)` instead, `n` the next method of the class
    /// with as many positional parameters.
    SiblingCall,
    /// An attribute initialisation `self.a = …` in `__init__` becomes `pass`.
    InitRemoval,
    /// A parameter's default changes: a number n → n + 1, a string as for constants, a bool
    /// → its opposite, `None` → `0`, anything else → `None`.
    DefaultArgument,
}

impl Operator {
    pub const ALL: [Operator; 15] = [
        Operator::StatementDeletion,
        Operator::ReturnValue,
        Operator::Constant,
        Operator::Arithmetic,
        Operator::Comparison,
        Operator::Boundary,
        Operator::Boolean,
        Operator::Unary,
        Operator::Negation,
        Operator::BreakContinue,
        Operator::ExceptionHandler,
        Operator::SelfAttribute,
        Operator::SiblingCall,
        Operator::InitRemoval,
        Operator::DefaultArgument,
    ];

    /// The name used in JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Operator::StatementDeletion => "statement_deletion",
            Operator::ReturnValue => "return_value",
            Operator::Constant => "constant",
            Operator::Arithmetic => "arithmetic",
            Operator::Comparison => "comparison",
            Operator::Boundary => "boundary",
            Operator::Boolean => "boolean",
            Operator::Unary => "unary",
            Operator::Negation => "negation",
            Operator::BreakContinue => "break_continue",
            Operator::ExceptionHandler => "exception_handler",
            Operator::SelfAttribute => "self_attribute",
            Operator::SiblingCall => "sibling_call",
            Operator::InitRemoval => "init_removal",
            Operator::DefaultArgument => "default_argument",
        }
    }

    pub fn parse(name: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|o| o.name() == name)
    }
}

impl std::fmt::Display for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_serde() {
        for op in Operator::ALL {
            assert_eq!(Operator::parse(op.name()), Some(op));
            assert_eq!(
                serde_json::to_value(op).unwrap(),
                serde_json::Value::String(op.name().into())
            );
        }
        assert_eq!(Operator::parse("nope"), None);
    }
}

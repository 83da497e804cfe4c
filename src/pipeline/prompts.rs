//! Prompt templates: minijinja files embedded from `assets/prompts/`, each overridable by a
//! file of the same name in `<config dir>/prompts/` (or any directory given).
//!
//! A template file is `<name>.jinja`: free notes, then a `---system---` line, the system
//! message, a `---user---` line and the user message. The two messages are separate
//! templates, so code that happens to contain a separator line cannot split a message.
//! Rendering is deterministic: the same context gives byte-identical messages (replay
//! compares prompts).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value, context};
use sha2::{Digest, Sha256};

use crate::llm::Message;
use crate::model::{Outcome, TestResult};

const EMBEDDED: [(&str, &str); 6] = [
    (
        "dependency_analysis",
        include_str!("../../assets/prompts/dependency_analysis.jinja"),
    ),
    ("method", include_str!("../../assets/prompts/method.jinja")),
    ("repair", include_str!("../../assets/prompts/repair.jinja")),
    (
        "holistic",
        include_str!("../../assets/prompts/holistic.jinja"),
    ),
    (
        "incremental",
        include_str!("../../assets/prompts/incremental.jinja"),
    ),
    (
        "compositional",
        include_str!("../../assets/prompts/compositional.jinja"),
    ),
];

const EXTENSION: &str = "jinja";
const SYSTEM_LINE: &str = "---system---";
const USER_LINE: &str = "---user---";
/// Traceback lines and message characters a repair prompt shows per failing test.
const TRACEBACK_LINES: usize = 25;
const MESSAGE_CHARS: usize = 2000;

/// The prompt names, as template files are named (`<name>.jinja`).
pub fn names() -> &'static [&'static str] {
    const NAMES: [&str; 6] = [
        "dependency_analysis",
        "method",
        "repair",
        "holistic",
        "incremental",
        "compositional",
    ];
    &NAMES
}

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}{}: {message}", line_suffix(*.line))]
    Template {
        file: String,
        line: Option<usize>,
        message: String,
    },
    #[error(
        "{file}: no `---user---` line (a prompt file is notes, `---system---`, the system message, `---user---`, the user message)"
    )]
    Format { file: String },
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

/// Where a template came from and where its two parts start in it.
#[derive(Debug, Clone)]
struct Origin {
    file: String,
    embedded: bool,
    /// First file line (1-based) of the system and user parts.
    system_line: usize,
    user_line: usize,
}

/// The loaded prompt templates.
#[derive(Debug, Clone)]
pub struct Prompts {
    env: Environment<'static>,
    origins: BTreeMap<&'static str, Origin>,
    fingerprint: String,
    /// Files in the override directory that are not templates (a misspelt name, say).
    pub warnings: Vec<String>,
}

impl Prompts {
    /// The templates shipped in the binary.
    pub fn embedded() -> Prompts {
        let sources = EMBEDDED.iter().map(|(n, s)| (*n, None, s.to_string()));
        // The embedded files are compiled and rendered by this module's tests.
        Prompts::build(sources.collect(), Vec::new())
            .unwrap_or_else(|e| panic!("embedded prompt templates are broken: {e}"))
    }

    /// The user's overrides from `user_dir` (the edge passes `<config dir>/prompts` when it
    /// exists), the embedded templates for the rest; no directory: the embedded ones.
    pub fn load(user_dir: Option<&Path>) -> Result<Prompts, PromptError> {
        match user_dir {
            Some(dir) => Prompts::from_dir(dir),
            None => Ok(Prompts::embedded()),
        }
    }

    /// Templates from `dir` where it has `<name>.jinja`, embedded ones otherwise.
    pub fn from_dir(dir: &Path) -> Result<Prompts, PromptError> {
        let io = |source| PromptError::Io {
            path: dir.display().to_string(),
            source,
        };
        let mut warnings = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let is_template = path.extension().is_some_and(|e| e == EXTENSION);
            if is_template && !names().contains(&stem) {
                warnings.push(format!(
                    "{}: not a prompt name (expected one of {}); ignored",
                    path.display(),
                    names().join(", ")
                ));
            }
        }
        warnings.sort();
        let mut sources = Vec::new();
        for (name, embedded) in EMBEDDED {
            let path = dir.join(format!("{name}.{EXTENSION}"));
            if path.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|source| PromptError::Io {
                    path: path.display().to_string(),
                    source,
                })?;
                sources.push((name, Some(path.display().to_string()), text));
            } else {
                sources.push((name, None, embedded.to_string()));
            }
        }
        Prompts::build(sources, warnings)
    }

    fn build(
        sources: Vec<(&'static str, Option<String>, String)>,
        warnings: Vec<String>,
    ) -> Result<Prompts, PromptError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        env.set_auto_escape_callback(|_| AutoEscape::None);
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|e| PromptError::Template {
                file: "syntax".into(),
                line: None,
                message: e.to_string(),
            })?;
        env.set_syntax(syntax);
        let mut origins = BTreeMap::new();
        let mut hasher = Sha256::new();
        for (name, path, text) in sources {
            let embedded = path.is_none();
            let file = path.unwrap_or_else(|| format!("assets/prompts/{name}.{EXTENSION}"));
            let text = text.replace("\r\n", "\n");
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hasher.update(text.as_bytes());
            hasher.update([0]);
            let (system, user) =
                split_parts(&text).ok_or_else(|| PromptError::Format { file: file.clone() })?;
            let origin = Origin {
                file,
                embedded,
                system_line: system.0,
                user_line: user.0,
            };
            for (part, (first_line, body)) in [("system", system), ("user", user)] {
                env.add_template_owned(format!("{name}.{part}"), body)
                    .map_err(|e| template_error(&origin, part, first_line, &e))?;
            }
            origins.insert(name, origin);
        }
        let fingerprint = hasher.finalize().iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        Ok(Prompts {
            env,
            origins,
            fingerprint,
            warnings,
        })
    }

    /// Where template `name` comes from: `embedded` or the override file's path.
    pub fn origin(&self, name: &str) -> Option<&str> {
        self.origins.get(name).map(|o| {
            if o.embedded {
                "embedded"
            } else {
                o.file.as_str()
            }
        })
    }

    /// SHA-256 of every template's name and text: two runs with the same fingerprint were
    /// prompted from the same templates.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn render(&self, name: &str, ctx: Value) -> Result<Vec<Message>, PromptError> {
        let mut messages = Vec::with_capacity(2);
        for part in ["system", "user"] {
            let text = self
                .env
                .get_template(&format!("{name}.{part}"))
                .and_then(|t| t.render(&ctx))
                .map_err(|e| match self.origins.get(name) {
                    Some(origin) => {
                        let first = if part == "system" {
                            origin.system_line
                        } else {
                            origin.user_line
                        };
                        template_error(origin, part, first, &e)
                    }
                    None => PromptError::Template {
                        file: name.to_string(),
                        line: None,
                        message: e.to_string(),
                    },
                })?;
            let text = text.trim();
            match part {
                "system" if text.is_empty() => {}
                "system" => messages.push(Message::system(text)),
                _ => messages.push(Message::user(text)),
            }
        }
        Ok(messages)
    }

    /// TDD step 1: the dependency graph and generation order of the target methods.
    pub fn dependency_analysis(
        &self,
        c: &DependencyContext<'_>,
    ) -> Result<Vec<Message>, PromptError> {
        self.render(
            "dependency_analysis",
            context! {
                class_name => c.class_name,
                skeleton => c.skeleton.trim_end(),
                methods => c.methods.iter().filter(|m| **m != "__init__").map(|m| m.to_string()).collect::<Vec<_>>(),
            },
        )
    }

    /// TDD step 2: one method, with its public tests.
    pub fn method(&self, c: &MethodContext<'_>) -> Result<Vec<Message>, PromptError> {
        self.render(
            "method",
            context! {
                class_name => c.class_name,
                partial_class => c.partial_class.trim_end(),
                method_name => c.method_name,
                signature_and_docstring => c.signature_and_docstring.trim_end(),
                public_tests => c.public_tests.map(str::trim_end),
            },
        )
    }

    /// TDD step 3: a reflective repair round.
    pub fn repair(&self, c: &RepairContext<'_>) -> Result<Vec<Message>, PromptError> {
        let failures: Vec<Value> = c
            .results
            .iter()
            // Every test that did not pass, tampered ones too (the model must hear of them).
            .filter(|r| r.outcome.is_failing())
            .map(|r| {
                context! {
                    test => r.id.as_str(),
                    outcome => outcome_word(r.outcome),
                    exc_type => r.exc_type.as_deref(),
                    message => r.message.as_deref().map(|m| cap_chars(m.trim(), MESSAGE_CHARS)),
                    traceback => r.traceback.as_deref().map(|t| trim_traceback(t, TRACEBACK_LINES)),
                }
            })
            .collect();
        self.render(
            "repair",
            context! {
                class_name => c.class_name,
                partial_class => c.partial_class.trim_end(),
                method_name => c.method_name,
                signature_and_docstring => c.signature_and_docstring.trim_end(),
                method_code => c.method_code.trim_end(),
                public_tests => c.public_tests.map(str::trim_end),
                suite_error => c.suite_error.map(|e| cap_chars(e.trim(), MESSAGE_CHARS)),
                failures => failures,
                round => c.round,
                max_rounds => c.max_rounds,
            },
        )
    }

    /// The whole class in one completion.
    pub fn holistic(&self, c: &HolisticContext<'_>) -> Result<Vec<Message>, PromptError> {
        self.render(
            "holistic",
            context! { class_name => c.class_name, skeleton => c.skeleton.trim_end() },
        )
    }

    /// The next method, given the class with the methods generated so far.
    pub fn incremental(&self, c: &IncrementalContext<'_>) -> Result<Vec<Message>, PromptError> {
        self.render(
            "incremental",
            context! {
                class_name => c.class_name,
                partial_class => c.partial_class.trim_end(),
                method_name => c.method_name,
                signature_and_docstring => c.signature_and_docstring.trim_end(),
            },
        )
    }

    /// One method alone, given the skeleton.
    pub fn compositional(&self, c: &CompositionalContext<'_>) -> Result<Vec<Message>, PromptError> {
        self.render(
            "compositional",
            context! {
                class_name => c.class_name,
                skeleton => c.skeleton.trim_end(),
                method_name => c.method_name,
                signature_and_docstring => c.signature_and_docstring.trim_end(),
            },
        )
    }
}

/// Split a template file into its system and user parts, each with its first file line.
fn split_parts(text: &str) -> Option<((usize, String), (usize, String))> {
    let lines: Vec<&str> = text.split('\n').collect();
    let user_at = lines.iter().position(|l| l.trim() == USER_LINE)?;
    let system_at = lines[..user_at]
        .iter()
        .position(|l| l.trim() == SYSTEM_LINE);
    let system = match system_at {
        Some(s) => (s + 2, lines[s + 1..user_at].join("\n")),
        None => (1, String::new()),
    };
    let user = (user_at + 2, lines[user_at + 1..].join("\n"));
    Some((system, user))
}

fn template_error(
    origin: &Origin,
    part: &str,
    first_line: usize,
    e: &minijinja::Error,
) -> PromptError {
    let message = match e.detail() {
        Some(detail) => format!("{} ({part} message): {detail}", e.kind()),
        None => format!("{e} ({part} message)"),
    };
    PromptError::Template {
        file: origin.file.clone(),
        line: e.line().map(|l| l + first_line - 1),
        message,
    }
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "passed",
        Outcome::Fail => "failed",
        Outcome::Error => "error",
        Outcome::Skip => "skipped",
        Outcome::Xfail => "expected failure",
        Outcome::Xpass => "unexpected success",
        Outcome::NotRun => "did not run",
        Outcome::Tampered => "tampered with (verdict discarded)",
    }
}

/// At most `max` characters, with a note of how many were cut.
fn cap_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!(
            "{} … ({} more characters)",
            &s[..at],
            s[at..].chars().count()
        ),
        None => s.to_string(),
    }
}

/// The last `max_lines` lines of a traceback (where the failure is), with a note of how
/// many were cut.
pub fn trim_traceback(traceback: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = traceback.trim_end().lines().collect();
    if lines.len() <= max_lines {
        return lines.join("\n");
    }
    let cut = lines.len() - max_lines;
    format!("… ({cut} lines cut)\n{}", lines[cut..].join("\n"))
}

/// TDD step 1 context.
#[derive(Debug, Clone, Copy)]
pub struct DependencyContext<'a> {
    pub class_name: &'a str,
    pub skeleton: &'a str,
    /// Target methods (`__init__` is left out even when listed).
    pub methods: &'a [&'a str],
}

/// TDD method generation context.
#[derive(Debug, Clone, Copy)]
pub struct MethodContext<'a> {
    pub class_name: &'a str,
    /// The class with the methods generated so far (imports included).
    pub partial_class: &'a str,
    pub method_name: &'a str,
    pub signature_and_docstring: &'a str,
    /// The public tests' code, when there are any.
    pub public_tests: Option<&'a str>,
}

/// Reflective repair context.
#[derive(Debug, Clone, Copy)]
pub struct RepairContext<'a> {
    pub class_name: &'a str,
    pub partial_class: &'a str,
    pub method_name: &'a str,
    pub signature_and_docstring: &'a str,
    /// The method as it is now.
    pub method_code: &'a str,
    pub public_tests: Option<&'a str>,
    /// The public tests' results; only the failing ones are shown.
    pub results: &'a [TestResult],
    /// Why the test module as a whole did not run (an import or syntax error), if it did not.
    pub suite_error: Option<&'a str>,
    /// This round (1-based) and the most there will be.
    pub round: u32,
    pub max_rounds: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct HolisticContext<'a> {
    pub class_name: &'a str,
    pub skeleton: &'a str,
}

#[derive(Debug, Clone, Copy)]
pub struct IncrementalContext<'a> {
    pub class_name: &'a str,
    /// The class with the methods generated so far.
    pub partial_class: &'a str,
    pub method_name: &'a str,
    pub signature_and_docstring: &'a str,
}

#[derive(Debug, Clone, Copy)]
pub struct CompositionalContext<'a> {
    pub class_name: &'a str,
    pub skeleton: &'a str,
    pub method_name: &'a str,
    pub signature_and_docstring: &'a str,
}

#[cfg(test)]
mod tests;

//! Parsing model replies: the dependency-analysis JSON, the four sections of a reflective
//! repair, and the method code of a generation reply.
//!
//! Models rarely answer exactly as asked, so every parser here is tolerant and says what it
//! had to fix in `problems` (recorded with the raw reply) instead of failing.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::analysis::extract::extract_code;
use crate::analysis::parse::parse_module;
use crate::analysis::splice::method_from_reply;

mod json;
mod reflection;

use reflection::code_blocks;
pub use reflection::{Reflection, parse_reflection};

/// A parsed dependency-analysis reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DepReply {
    /// Every target method → its prerequisite methods (all target methods are keys).
    pub graph: BTreeMap<String, BTreeSet<String>>,
    /// Every target method exactly once: the reply's order, then the methods it omitted.
    pub order: Vec<String>,
    /// What had to be dropped, added or guessed.
    pub problems: Vec<String>,
}

const DEP_KEYS: [&str; 6] = [
    "dependencies",
    "dependency_graph",
    "deps",
    "graph",
    "prerequisites",
    "method_dependencies",
];
const ORDER_KEYS: [&str; 8] = [
    "order",
    "generation_order",
    "topological_order",
    "implementation_order",
    "method_order",
    "ordering",
    "sequence",
    "execution_order",
];
const LIST_KEYS: [&str; 2] = ["methods", "nodes"];
const NAME_KEYS: [&str; 4] = ["name", "method", "method_name", "id"];
const ITEM_DEP_KEYS: [&str; 8] = [
    "depends_on",
    "dependencies",
    "prerequisites",
    "prerequisite_methods",
    "requires",
    "deps",
    "calls",
    "dependson",
];
/// Words models write for "no dependency".
const NONE_WORDS: [&str; 6] = ["none", "n/a", "na", "nothing", "null", "-"];

/// Parse a dependency-analysis reply against the target methods (`__init__` excluded).
/// `Err` only when no JSON object can be found or parsed at all.
pub fn parse_dependency_reply(text: &str, methods: &[&str]) -> Result<DepReply, String> {
    let objects = json::objects(text);
    if objects.is_empty() {
        return Err("no JSON object in the reply".into());
    }
    let mut parsed = Vec::new();
    let mut first_error = None;
    for candidate in &objects {
        match json::parse_lenient(candidate) {
            Ok(v) => parsed.push(v),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if parsed.is_empty() {
        return Err(format!(
            "found {} JSON-like object(s) but none parses: {}",
            objects.len(),
            first_error.unwrap_or_default()
        ));
    }
    let reply = Interpreter::new(methods);
    // The first object (or object nested in one) in a shape we know; else the first object.
    let chosen = parsed
        .iter()
        .find_map(|v| find_shape(v, 0))
        .or_else(|| parsed.iter().find_map(|v| reply.method_keyed(v)))
        .unwrap_or(&parsed[0]);
    Ok(reply.read(chosen))
}

fn key_matches(key: &str, wanted: &[&str]) -> bool {
    let k = key.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    wanted.contains(&k.as_str())
}

fn field<'v>(map: &'v serde_json::Map<String, Value>, wanted: &[&str]) -> Option<&'v Value> {
    map.iter()
        .find(|(k, _)| key_matches(k, wanted))
        .map(|(_, v)| v)
}

/// An object with a dependency, order or method-list key, at most two levels down.
fn find_shape(value: &Value, depth: usize) -> Option<&Value> {
    let map = value.as_object()?;
    let known = [&DEP_KEYS[..], &ORDER_KEYS, &LIST_KEYS];
    if map.keys().any(|k| known.iter().any(|w| key_matches(k, w))) {
        return Some(value);
    }
    if depth >= 2 {
        return None;
    }
    map.values().find_map(|v| find_shape(v, depth + 1))
}

struct Interpreter<'m> {
    methods: &'m [&'m str],
    problems: Vec<String>,
}

impl<'m> Interpreter<'m> {
    fn new(methods: &'m [&'m str]) -> Self {
        Interpreter {
            methods,
            problems: Vec::new(),
        }
    }

    fn problem(&mut self, p: String) {
        if !self.problems.contains(&p) {
            self.problems.push(p);
        }
    }

    /// An object whose keys are the methods themselves (`{"m": ["a"], …}`).
    fn method_keyed<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        let map = value.as_object()?;
        map.keys()
            .any(|k| self.resolve_quiet(k).is_some())
            .then_some(value)
    }

    /// The target method a name from the reply means: `self.`, `()`, backticks and quotes
    /// removed; `_Class__x` read as `__x`. `None` for `__init__` and unknown names.
    fn resolve_quiet(&self, raw: &str) -> Option<&'m str> {
        let name = normalize_name(raw);
        if let Some(m) = self.methods.iter().find(|m| **m == name) {
            return Some(m);
        }
        // Name-mangled spelling of a private method.
        let (_, tail) = name.strip_prefix('_')?.split_once("__")?;
        let private = format!("__{tail}");
        self.methods.iter().find(|m| **m == private).copied()
    }

    fn resolve(&mut self, raw: &str, context: &str) -> Option<&'m str> {
        let name = normalize_name(raw);
        if name.is_empty()
            || name == "__init__"
            || NONE_WORDS.contains(&name.to_ascii_lowercase().as_str())
        {
            return None;
        }
        let found = self.resolve_quiet(raw);
        if found.is_none() {
            self.problem(format!("unknown method `{name}` {context} dropped"));
        }
        found
    }

    fn read(mut self, value: &Value) -> DepReply {
        let mut graph: BTreeMap<String, BTreeSet<String>> = self
            .methods
            .iter()
            .filter(|m| **m != "__init__")
            .map(|m| (m.to_string(), BTreeSet::new()))
            .collect();
        let mut mentioned = BTreeSet::new();
        let mut order_raw: Option<Vec<String>> = None;
        let mut entries: Vec<(String, Vec<String>)> = Vec::new();
        if let Some(map) = value.as_object() {
            let mut found_graph = false;
            if let Some(deps) = field(map, &DEP_KEYS) {
                found_graph = true;
                entries.extend(dep_entries(deps));
            }
            if let Some(list) = field(map, &LIST_KEYS) {
                found_graph = true;
                entries.extend(dep_entries(list));
                // `{"methods": ["a", "b"]}` lists the order when there is no order key.
                if let Some(names) = list.as_array().filter(|a| a.iter().all(Value::is_string)) {
                    order_raw = Some(names.iter().filter_map(value_name).collect());
                }
            }
            if let Some(order) = field(map, &ORDER_KEYS) {
                order_raw = Some(names_in(order));
            }
            if !found_graph && self.method_keyed(value).is_some() {
                found_graph = true;
                entries.extend(dep_entries(value));
            }
            if !found_graph {
                self.problem("no dependencies in the reply; assumed none".into());
            }
        } else {
            self.problem("the reply's JSON is not an object".into());
        }
        for (key, deps) in entries {
            let Some(method) = self.resolve(&key, "(a dependency key)") else {
                continue;
            };
            mentioned.insert(method);
            for dep in deps {
                let Some(dep) = self.resolve(&dep, &format!("(a prerequisite of `{method}`)"))
                else {
                    continue;
                };
                if dep == method {
                    self.problem(format!(
                        "`{method}` listed as its own prerequisite; dropped"
                    ));
                    continue;
                }
                graph
                    .entry(method.to_string())
                    .or_default()
                    .insert(dep.to_string());
            }
        }
        if !mentioned.is_empty() {
            for m in self.methods.iter().filter(|m| **m != "__init__") {
                if !mentioned.contains(m) {
                    self.problem(format!("no dependency entry for `{m}`; assumed none"));
                }
            }
        }
        let order = self.order(order_raw);
        DepReply {
            graph,
            order,
            problems: self.problems,
        }
    }

    fn order(&mut self, raw: Option<Vec<String>>) -> Vec<String> {
        let mut order: Vec<String> = Vec::new();
        match raw {
            None => self.problem("no generation order in the reply; skeleton order used".into()),
            Some(raw) => {
                for name in raw {
                    let Some(m) = self.resolve(&name, "(in the order)") else {
                        continue;
                    };
                    if order.iter().any(|o| o == m) {
                        self.problem(format!("`{m}` appears twice in the order; first kept"));
                    } else {
                        order.push(m.to_string());
                    }
                }
                let missing: Vec<&str> = self
                    .methods
                    .iter()
                    .copied()
                    .filter(|m| *m != "__init__" && !order.iter().any(|o| o == m))
                    .collect();
                for m in &missing {
                    self.problem(format!("the order omits `{m}`; appended"));
                }
            }
        }
        for m in self.methods.iter().filter(|m| **m != "__init__") {
            if !order.iter().any(|o| o == m) {
                order.push(m.to_string());
            }
        }
        order
    }
}

/// (method, prerequisites) pairs from a map (`{"m": [...]}`) or a list of method objects
/// (`[{"name": "m", "depends_on": [...]}]`).
fn dep_entries(value: &Value) -> Vec<(String, Vec<String>)> {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                let deps = match v {
                    Value::Object(inner) => field(inner, &ITEM_DEP_KEYS).map(names_in),
                    other => Some(names_in(other)),
                };
                (k.clone(), deps.unwrap_or_default())
            })
            .collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| {
                let obj = item.as_object()?;
                let name = field(obj, &NAME_KEYS).and_then(value_name)?;
                let deps = field(obj, &ITEM_DEP_KEYS).map(names_in).unwrap_or_default();
                Some((name, deps))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Names in a list, a comma/arrow separated string, or objects with a name field.
fn names_in(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => s
            .split(|c: char| c == ',' || c == ';' || c == '|' || c == '→' || c.is_whitespace())
            .flat_map(|s| s.split("->"))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        Value::Array(items) => items.iter().flat_map(names_in).collect(),
        Value::Object(_) => value_name(value).into_iter().collect(),
        _ => Vec::new(),
    }
}

fn value_name(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Object(obj) => field(obj, &NAME_KEYS).and_then(value_name),
        _ => None,
    }
}

/// `self.m()`, `` `m` ``, `Class.m(x)` → `m`.
fn normalize_name(raw: &str) -> String {
    let t = raw
        .trim()
        .trim_matches(|c| matches!(c, '`' | '"' | '\'' | '*'));
    let t = t.split('(').next().unwrap_or("");
    let t = t.rsplit('.').next().unwrap_or("");
    t.trim().trim_end_matches(':').to_string()
}

/// The method `method` from a generation reply, dedented: from the code the reply's main
/// block holds, else from any of its Python code blocks (last first).
pub fn method_code(text: &str, method: &str) -> Result<String, String> {
    let code = extract_code(text);
    if let Some(m) = method_from_reply(&code, method) {
        return Ok(m);
    }
    let normalized = text.replace("\r\n", "\n");
    let blocks = code_blocks(&normalized);
    if let Some(m) = blocks
        .iter()
        .rev()
        .find_map(|b| method_from_reply(b, method))
    {
        return Ok(m);
    }
    if code.trim().is_empty() && blocks.iter().all(|b| b.trim().is_empty()) {
        return Err(format!("the reply holds no code (looked for `{method}`)"));
    }
    let module = parse_module(&code);
    let mut defined: Vec<String> = module.functions.clone();
    for class in &module.classes {
        defined.extend(class.method_names().into_iter().map(String::from));
    }
    if defined.is_empty() {
        Err(format!(
            "the reply's code defines no function (looked for `{method}`)"
        ))
    } else {
        Err(format!(
            "the reply's code does not define `{method}`; it defines {}",
            defined
                .iter()
                .map(|d| format!("`{d}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

#[cfg(test)]
mod tests;

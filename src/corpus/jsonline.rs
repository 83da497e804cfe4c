//! `corpus query --json` written straight from a row's values: the same bytes as serialising a
//! [`ClassLine`](super::query::ClassLine) with serde_json, without building one (no map, no
//! `serde_json::Value` tree per row), so a whole result set streams as fast as its first page.
//!
//! Each stored JSON column is read borrowed as the shape the build writes (a list of names, a
//! list of pairs, an ordered map of lists); its serialisation is then serde_json's own
//! (`serialize_str`, `number`). A column of any other shape (a crafted store, a string
//! with escapes that cannot be borrowed) takes the `ClassLine` path's way, byte for byte.

use std::io::Write;

use rusqlite::types::Value;
use serde::Serializer as _;
use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, Visitor};

use super::query::number;
use crate::analysis::metrics::METRIC_NAMES;

/// One row of `select_line()` (its values, in order) as one JSON line (with its newline).
pub(super) fn write_row(r: &[Value], out: &mut impl Write) -> anyhow::Result<()> {
    write!(out, "{{\"id\":\"{}\"", int(r, 0)?)?;
    for (i, key) in [(1, "repo"), (2, "path"), (3, "qualname"), (4, "class")] {
        write!(out, ",\"{key}\":")?;
        string(out, text(r, i)?)?;
    }
    for (i, key) in [(5, "line"), (6, "end_line")] {
        write!(out, ",\"{key}\":{}", int(r, i)?)?;
    }
    out.write_all(b",\"methods\":")?;
    names(out, text(r, 7)?)?;
    out.write_all(b",\"edges\":")?;
    let edges = text(r, 8)?;
    match serde_json::from_str::<Vec<[&str; 2]>>(edges) {
        Ok(pairs) => {
            out.write_all(b"[")?;
            for (k, [a, b]) in pairs.iter().enumerate() {
                out.write_all(if k == 0 { b"[" } else { b",[" })?;
                string(out, a)?;
                out.write_all(b",")?;
                string(out, b)?;
                out.write_all(b"]")?;
            }
            out.write_all(b"]")?;
        }
        Err(_) => serde_json::to_writer(&mut *out, &value(edges))?,
    }
    out.write_all(b",\"metrics\":{")?;
    for (k, m) in METRIC_NAMES.iter().enumerate() {
        out.write_all(if k == 0 { b"\"" } else { b",\"" })?;
        out.write_all(m.as_bytes())?;
        out.write_all(b"\":")?;
        serde_json::to_writer(&mut *out, &number(real(r, 16 + k)?))?;
    }
    out.write_all(b"}")?;
    for (i, key) in [(9, "total_program_units"), (10, "total_doc_str")] {
        write!(out, ",\"{key}\":{}", int(r, i)?)?;
    }
    let self_contained = int(r, 11)? != 0;
    write!(out, ",\"self_contained\":{self_contained}")?;
    out.write_all(b",\"deps\":")?;
    let deps = text(r, 12)?;
    match serde_json::from_str::<Ordered<'_>>(deps) {
        Ok(Ordered(entries)) => {
            out.write_all(b"{")?;
            for (k, (key, list)) in entries.iter().enumerate() {
                if k > 0 {
                    out.write_all(b",")?;
                }
                string(out, key)?;
                out.write_all(b":")?;
                list_of(out, list)?;
            }
            out.write_all(b"}")?;
        }
        Err(_) => serde_json::to_writer(&mut *out, &value(deps))?,
    }
    out.write_all(b",\"blockers\":")?;
    names(out, text(r, 15)?)?;
    for (i, key) in [(13, "dup_cluster"), (14, "near_dup_cluster")] {
        write!(out, ",\"{key}\":")?;
        match &r[i] {
            Value::Integer(id) => write!(out, "\"{id}\"")?,
            Value::Null => out.write_all(b"null")?,
            other => return Err(wrong_type(i, "an integer or null", other)),
        }
    }
    out.write_all(b"}\n")?;
    Ok(())
}

/// Column `i` read as `rusqlite` reads it into the `ClassLine` path's types: text as text,
/// an integer as an integer, a real from a real or an integer; anything else is an error.
fn text(r: &[Value], i: usize) -> anyhow::Result<&str> {
    match &r[i] {
        Value::Text(s) => Ok(s),
        other => Err(wrong_type(i, "text", other)),
    }
}

fn int(r: &[Value], i: usize) -> anyhow::Result<i64> {
    match &r[i] {
        Value::Integer(v) => Ok(*v),
        other => Err(wrong_type(i, "an integer", other)),
    }
}

fn real(r: &[Value], i: usize) -> anyhow::Result<f64> {
    match &r[i] {
        Value::Real(v) => Ok(*v),
        Value::Integer(v) => Ok(*v as f64),
        other => Err(wrong_type(i, "a number", other)),
    }
}

fn wrong_type(i: usize, wanted: &str, found: &Value) -> anyhow::Error {
    anyhow::anyhow!(
        "result column {i}: expected {wanted}, found {:?}",
        found.data_type()
    )
}

/// A string escaped as serde_json escapes it (its serializer holds nothing but the writer).
fn string(out: &mut impl Write, s: &str) -> std::io::Result<()> {
    (&mut serde_json::Serializer::new(out))
        .serialize_str(s)
        .map_err(std::io::Error::from)
}

fn list_of(out: &mut impl Write, list: &[&str]) -> std::io::Result<()> {
    out.write_all(b"[")?;
    for (k, s) in list.iter().enumerate() {
        if k > 0 {
            out.write_all(b",")?;
        }
        string(out, s)?;
    }
    out.write_all(b"]")
}

/// A stored list of names (`methods`, `blockers`): read as `Vec<String>`, `[]` when it is not one.
fn names(out: &mut impl Write, json: &str) -> anyhow::Result<()> {
    match serde_json::from_str::<Vec<&str>>(json) {
        Ok(list) => list_of(out, &list)?,
        Err(_) => {
            let list: Vec<String> = serde_json::from_str(json).unwrap_or_default();
            serde_json::to_writer(&mut *out, &list)?;
        }
    }
    Ok(())
}

/// A stored JSON value as the `ClassLine` path reads it: `null` when it is not JSON.
fn value(json: &str) -> serde_json::Value {
    serde_json::from_str(json).unwrap_or(serde_json::Value::Null)
}

/// An object of lists of names in its stored order (`deps`); refused when a key repeats, which
/// a `serde_json::Map` would fold into one.
struct Ordered<'a>(Vec<(&'a str, Vec<&'a str>)>);

impl<'de> Deserialize<'de> for Ordered<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of lists of names")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(&'de str, Vec<&'de str>)> = Vec::new();
                while let Some((key, list)) = map.next_entry::<&'de str, Vec<&'de str>>()? {
                    // A handful of keys (three as built): linear-ok: at most a few entries.
                    if entries.iter().any(|(k, _)| *k == key) {
                        return Err(A::Error::custom("a repeated key"));
                    }
                    entries.push((key, list));
                }
                Ok(Ordered(entries))
            }
        }
        d.deserialize_map(V)
    }
}

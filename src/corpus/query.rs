//! Reading a store: what `corpus query`/`export` print and what a browser needs — pages
//! sorted by any metric column under a filter, counts, the histogram of a metric over the
//! filtered set, the funnel, a class's duplicate clusters and its full record.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, bail};
use rusqlite::{Connection, params, params_from_iter};
use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::filter::{Filter, numeric_column};
use super::funnel::{Funnel, funnel};
use super::guard::{Armed, Budget};
use super::schema::open_ro;
use crate::analysis::metrics::METRIC_NAMES;

pub struct Store {
    conn: Connection,
    path: std::path::PathBuf,
    budget: Budget,
}

/// The longest any one step of a read may take (a count, a page, the next line of a stream):
/// far above what a real store needs (a count over 300k classes takes well under a second),
/// short enough that a crafted store cannot hang a command or the browser.
pub const STEP_LIMIT: Duration = Duration::from_secs(60);

/// A sort: a numeric column (a metric, `doc`, `methods`, …) or the store's order (path, line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sort {
    pub column: Option<String>,
    pub descending: bool,
}

/// One class as `corpus query` prints it (JSON Lines).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClassLine {
    /// A string in JSON: ids use all 63 bits, and JSON readers (jq, JavaScript, pandas) round
    /// integers above 2^53.
    #[serde(serialize_with = "id_string")]
    pub id: i64,
    pub repo: String,
    pub path: String,
    pub qualname: String,
    pub class: String,
    pub line: i64,
    pub end_line: i64,
    pub methods: Vec<String>,
    pub edges: Json,
    pub metrics: Map<String, Json>,
    pub total_program_units: i64,
    pub total_doc_str: i64,
    pub self_contained: bool,
    pub deps: Json,
    /// Why it is not self-contained (empty when it is): `third-party: numpy`, …
    pub blockers: Vec<String>,
    /// Cluster ids are class ids: strings in JSON too.
    #[serde(serialize_with = "opt_id_string")]
    pub dup_cluster: Option<i64>,
    #[serde(serialize_with = "opt_id_string")]
    pub near_dup_cluster: Option<i64>,
}

/// Serialise an id as a JSON string (exact for every reader).
pub fn id_string<S: serde::Serializer>(id: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(id)
}

fn opt_id_string<S: serde::Serializer>(id: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match id {
        Some(id) => s.collect_str(id),
        None => s.serialize_none(),
    }
}

/// Code and skeleton of a class (what the task view shows), read on demand.
#[derive(Debug, Clone, Serialize)]
pub struct ClassText {
    pub code: String,
    pub skeleton: String,
    pub docstring: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Histogram {
    pub column: String,
    pub min: f64,
    pub max: f64,
    /// Bucket i covers [min + i·w, min + (i+1)·w); the last includes max.
    pub counts: Vec<u64>,
}

/// The members of a class's clusters, in store order.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Clusters {
    pub exact: Vec<i64>,
    pub near: Vec<i64>,
}

fn select_line() -> String {
    let metrics: Vec<String> = METRIC_NAMES.iter().map(|m| format!("c.\"{m}\"")).collect();
    format!(
        "SELECT c.id, c.repo, c.path, c.qualname, c.name, c.line, c.end_line, l.methods,
                l.edges, c.total_program_units, c.total_doc_str, c.self_contained,
                l.deps, c.dup_cluster, c.near_dup_cluster, c.blockers, {}
         FROM classes c JOIN class_lists l ON l.seq = c.seq",
        metrics.join(", ")
    )
}

/// Columns of `select_line()`.
fn select_line_width() -> usize {
    16 + METRIC_NAMES.len()
}

/// Rows per batch handed from the reading thread to the writing one, and batches in flight:
/// a few MB at most, whatever the result set's size.
const BATCH_ROWS: usize = 256;
const BATCHES_IN_FLIGHT: usize = 4;

fn order_by(sort: &Sort) -> anyhow::Result<String> {
    Ok(match &sort.column {
        None => "c.path, c.line, c.id".into(),
        Some(name) => {
            let Some(col) = numeric_column(name) else {
                bail!("cannot sort by `{name}`: not a metric or numeric field");
            };
            let dir = if sort.descending { "DESC" } else { "ASC" };
            format!("{col} {dir}, c.path, c.line, c.id")
        }
    })
}

impl Store {
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        let mut conn = open_ro(path)?;
        let budget = Budget::install(&mut conn);
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            budget,
        })
    }

    /// Bound what runs until the guard goes (see [`STEP_LIMIT`]).
    fn bounded(&self) -> Armed<'_> {
        self.budget.arm(STEP_LIMIT)
    }

    /// Why the store is not whole, when its last build stopped before the end (killed, Ctrl-C,
    /// a crash): its duplicate clusters, subclass counts and indexes are stale and files may be
    /// missing. Says what to run to finish it.
    pub fn unfinished(&self) -> anyhow::Result<Option<String>> {
        Store::unfinished_in(&self.conn, &self.path)
    }

    /// [`Store::unfinished`] on a connection to the store at `path`.
    pub fn unfinished_in(conn: &Connection, path: &Path) -> anyhow::Result<Option<String>> {
        let finalized = super::schema::get_meta(conn, "finalized")?;
        if finalized.as_deref() == Some("1") {
            return Ok(None);
        }
        let roots: Vec<String> = super::schema::get_meta(conn, "roots")?
            .and_then(|r| serde_json::from_str(&r).ok())
            .unwrap_or_default();
        let roots = if roots.is_empty() {
            "PATH...".to_string()
        } else {
            roots
                .iter()
                .map(|r| crate::text::escape_control(r).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        Ok(Some(format!(
            "{}: its build did not finish (interrupted?): files may be missing and its duplicate \
             clusters, subclass counts and funnel are not final; run `classlab corpus build {roots} \
             --out {}` again to finish it",
            crate::text::escape_control(&path.display().to_string()),
            crate::text::escape_control(&path.display().to_string())
        )))
    }

    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    pub fn count(&self, filter: &Filter) -> anyhow::Result<u64> {
        let _bound = self.bounded();
        let sql = format!("SELECT count(*) FROM classes c WHERE {}", filter.sql);
        let n: i64 = self
            .conn
            .query_row(&sql, params_from_iter(&filter.params), |r| r.get(0))
            .context("counting classes")?;
        Ok(n.max(0) as u64)
    }

    /// Ids of one page of the filtered set, sorted (the browser's virtualised list).
    pub fn page_ids(
        &self,
        filter: &Filter,
        sort: &Sort,
        offset: u64,
        limit: u64,
    ) -> anyhow::Result<Vec<i64>> {
        let _bound = self.bounded();
        let sql = format!(
            "SELECT c.id FROM classes c WHERE {} ORDER BY {} LIMIT {limit} OFFSET {offset}",
            filter.sql,
            order_by(sort)?
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let ids = stmt
            .query_map(params_from_iter(&filter.params), |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    /// A page of full lines, calling `each` per class (streams: nothing is collected).
    pub fn for_each_line(
        &self,
        filter: &Filter,
        sort: &Sort,
        offset: u64,
        limit: Option<u64>,
        mut each: impl FnMut(ClassLine) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.for_each_row(filter, sort, offset, limit, |r| each(line_of(r)?))
    }

    /// [`Store::for_each_line`] as JSON Lines written to `out`: the bytes of serialising each
    /// [`ClassLine`] with serde_json, written straight from the row (see `jsonline`).
    ///
    /// Reading and formatting overlap: this thread steps the query and hands batches of rows to
    /// a second one that formats and writes them, so on two cores a whole result set costs the
    /// slower of the two rather than their sum. At most [`BATCHES_IN_FLIGHT`] batches wait.
    pub fn write_json_lines(
        &self,
        filter: &Filter,
        sort: &Sort,
        offset: u64,
        limit: Option<u64>,
        out: &mut (impl std::io::Write + Send),
    ) -> anyhow::Result<()> {
        use rusqlite::types::Value;
        let width = select_line_width();
        std::thread::scope(|scope| {
            let (send, batches) = std::sync::mpsc::sync_channel::<Vec<Value>>(BATCHES_IN_FLIGHT);
            let writer = scope.spawn(move || -> anyhow::Result<()> {
                for batch in batches {
                    for row in batch.chunks_exact(width) {
                        super::jsonline::write_row(row, &mut *out)?;
                    }
                }
                Ok(())
            });
            let mut batch = Vec::with_capacity(BATCH_ROWS * width);
            let read = self.for_each_row(filter, sort, offset, limit, |r| {
                for i in 0..width {
                    batch.push(r.get::<_, Value>(i)?);
                }
                if batch.len() == BATCH_ROWS * width {
                    let full =
                        std::mem::replace(&mut batch, Vec::with_capacity(BATCH_ROWS * width));
                    // The writer stopped (its error is reported below): stop reading.
                    if send.send(full).is_err() {
                        anyhow::bail!("the JSON writer stopped");
                    }
                }
                Ok(())
            });
            let last = if batch.is_empty() {
                Ok(())
            } else {
                send.send(batch)
            };
            drop(send);
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(anyhow::anyhow!("the JSON writer panicked")));
            // The writer's error is the cause when reading stopped for it.
            written?;
            read?;
            last.map_err(|_| anyhow::anyhow!("the JSON writer stopped"))
        })
    }

    /// The rows of `select_line()` for a page, one at a time.
    fn for_each_row(
        &self,
        filter: &Filter,
        sort: &Sort,
        offset: u64,
        limit: Option<u64>,
        mut each: impl FnMut(&rusqlite::Row<'_>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let limit = limit.map_or("-1".to_string(), |l| l.to_string());
        let sql = format!(
            "{} WHERE {} ORDER BY {} LIMIT {limit} OFFSET {offset}",
            select_line(),
            filter.sql,
            order_by(sort)?
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params_from_iter(&filter.params))?;
        loop {
            // Each step is bounded, not the stream: a reader may take its time over the lines.
            let row = {
                let _bound = self.bounded();
                rows.next()?
            };
            match row {
                Some(r) => each(r)?,
                None => break,
            }
        }
        Ok(())
    }

    pub fn line(&self, id: i64) -> anyhow::Result<Option<ClassLine>> {
        let _bound = self.bounded();
        let sql = format!("{} WHERE c.id = ?1", select_line());
        let mut stmt = self.conn.prepare(&sql)?;
        let mut rows = stmt.query(params![id])?;
        match rows.next()? {
            Some(r) => Ok(Some(line_of(r)?)),
            None => Ok(None),
        }
    }

    pub fn text(&self, id: i64) -> anyhow::Result<Option<ClassText>> {
        let _bound = self.bounded();
        let mut stmt = self.conn.prepare_cached(
            "SELECT t.code, t.skeleton, t.docstring
             FROM classes c JOIN class_text t ON t.seq = c.seq WHERE c.id = ?1",
        )?;
        let mut rows = stmt.query(params![id])?;
        Ok(match rows.next()? {
            Some(r) => Some(ClassText {
                code: r.get(0)?,
                skeleton: r.get(1)?,
                docstring: r.get(2)?,
            }),
            None => None,
        })
    }

    /// Distribution of a numeric column over the filtered set, in `bins` equal-width buckets.
    pub fn histogram(
        &self,
        filter: &Filter,
        column: &str,
        bins: usize,
    ) -> anyhow::Result<Histogram> {
        let _bound = self.bounded();
        let Some(col) = numeric_column(column) else {
            bail!("no numeric column `{column}`");
        };
        let bins = bins.max(1);
        let (min, max): (Option<f64>, Option<f64>) = self.conn.query_row(
            &format!(
                "SELECT min({col}), max({col}) FROM classes c WHERE {}",
                filter.sql
            ),
            params_from_iter(&filter.params),
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let (Some(min), Some(max)) = (min, max) else {
            return Ok(Histogram {
                column: column.into(),
                min: 0.0,
                max: 0.0,
                counts: vec![0; bins],
            });
        };
        let width = if max > min {
            (max - min) / bins as f64
        } else {
            1.0
        };
        let sql = format!(
            "SELECT min(CAST(({col} - ?) / ? AS INTEGER), {last}), count(*) FROM classes c
             WHERE {} GROUP BY 1",
            filter.sql,
            last = bins - 1
        );
        let mut params: Vec<rusqlite::types::Value> = vec![min.into(), width.into()];
        params.extend(filter.params.iter().cloned());
        let mut counts = vec![0u64; bins];
        let mut stmt = self.conn.prepare(&sql)?;
        for row in stmt.query_map(params_from_iter(params), |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })? {
            let (bucket, n) = row?;
            if let Some(c) = counts.get_mut(bucket.max(0) as usize) {
                *c += n.max(0) as u64;
            }
        }
        Ok(Histogram {
            column: column.into(),
            min,
            max,
            counts,
        })
    }

    pub fn funnel(&self) -> anyhow::Result<Funnel> {
        let _bound = self.bounded();
        Ok(funnel(&self.conn)?)
    }

    /// The other members of a class's exact and near duplicate clusters (itself included).
    pub fn clusters(&self, id: i64) -> anyhow::Result<Clusters> {
        let _bound = self.bounded();
        let (dup, near): (Option<i64>, Option<i64>) = match self.conn.query_row(
            "SELECT dup_cluster, near_dup_cluster FROM classes WHERE id = ?1",
            params![id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        ) {
            Ok(v) => v,
            Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(Clusters::default()),
            Err(e) => return Err(e.into()),
        };
        let members = |col: &str, cluster: Option<i64>| -> anyhow::Result<Vec<i64>> {
            let Some(cluster) = cluster else {
                return Ok(Vec::new());
            };
            let sql = format!("SELECT id FROM classes WHERE {col} = ?1 ORDER BY path, line, id");
            let mut stmt = self.conn.prepare(&sql)?;
            let ids = stmt
                .query_map(params![cluster], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(ids)
        };
        Ok(Clusters {
            exact: members("dup_cluster", dup)?,
            near: members("near_dup_cluster", near)?,
        })
    }
}

fn parse_json(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or(Json::Null)
}

fn line_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<ClassLine> {
    let methods: Vec<String> = serde_json::from_str(&r.get::<_, String>(7)?).unwrap_or_default();
    let mut metrics = Map::new();
    for (i, m) in METRIC_NAMES.iter().enumerate() {
        let v: f64 = r.get(16 + i)?;
        metrics.insert((*m).into(), number(v));
    }
    Ok(ClassLine {
        id: r.get(0)?,
        repo: r.get(1)?,
        path: r.get(2)?,
        qualname: r.get(3)?,
        class: r.get(4)?,
        line: r.get(5)?,
        end_line: r.get(6)?,
        methods,
        edges: parse_json(&r.get::<_, String>(8)?),
        metrics,
        total_program_units: r.get(9)?,
        total_doc_str: r.get(10)?,
        self_contained: r.get::<_, i64>(11)? != 0,
        deps: parse_json(&r.get::<_, String>(12)?),
        blockers: serde_json::from_str(&r.get::<_, String>(15)?).unwrap_or_default(),
        dup_cluster: r.get(13)?,
        near_dup_cluster: r.get(14)?,
    })
}

/// Whole numbers print as integers (`3`, not `3.0`), as the metrics mostly are.
pub fn number(v: f64) -> Json {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        Json::from(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number)
    }
}

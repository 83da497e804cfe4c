//! The corpus browser's background thread: it owns the store's connection and answers the
//! screen's requests through a channel the screen drains in `poll`. The newest request of each
//! kind wins (older ones are dropped); a new query interrupts the SQL statement under way
//! (`Connection::interrupt`) and abandons a fuzzy scan between chunks. A query answers in
//! stages, each sent as soon as it is known: the rows around the viewport first, then the
//! count, then the histogram — so the first rows show before the whole set is counted.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::time::{Duration, Instant};

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use rusqlite::types::Value;
use rusqlite::{params, params_from_iter};
use serde_json::Value as Json;

use crate::corpus::filter::numeric_column;
use crate::corpus::query::{Histogram, Sort};
use crate::corpus::{Filter, Store};

use super::rows::{Detail, Method, Row};

/// Fuzzy-search matches are streamed after every chunk of this many scanned classes.
const SCAN_CHUNK: usize = 20_000;
/// … and the first after this many.
const FIRST_CHUNK: usize = 2_000;
/// Buckets of the distribution panel.
pub const BINS: usize = 20;

/// What the list shows: the filter, the fuzzy search, the sort and the columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub filter: Filter,
    /// Fuzzy text over qualified name and path; empty: none.
    pub search: String,
    pub sort: Sort,
    /// The metric columns of each row.
    pub columns: Vec<String>,
    /// The histogram's column (the sorted one, else the first shown).
    pub hist_column: String,
}

#[derive(Debug)]
pub enum Request {
    /// A new list: answer the rows from `offset` first, then the count and the histogram.
    Query {
        generation: u64,
        query: Box<Query>,
        offset: u64,
        limit: u64,
    },
    /// Rows of the current list (dropped when `generation` is not the current one).
    Page {
        generation: u64,
        offset: u64,
        limit: u64,
    },
    Detail(i64),
    Clusters(i64),
    Funnel,
}

/// A request with its serial (the screen is busy until the worker has seen the last one).
pub type Envelope = (u64, Request);

#[derive(Debug)]
pub enum Reply {
    Rows {
        generation: u64,
        offset: u64,
        rows: Vec<Row>,
    },
    /// How many classes the list holds; `done` false while a fuzzy scan goes on (so far).
    Count {
        generation: u64,
        total: u64,
        done: bool,
    },
    Histogram {
        generation: u64,
        histogram: Histogram,
    },
    Detail(Box<Detail>),
    /// The members of a class's exact and near duplicate clusters (store order, exact first).
    Clusters {
        id: i64,
        members: Vec<Row>,
        exact: usize,
    },
    Funnel(crate::corpus::funnel::Funnel),
    /// A request failed (not cancelled: a cancelled one says nothing); `generation`: the
    /// query it was part of, if any (its list stays empty).
    Error {
        generation: Option<u64>,
        message: String,
    },
    /// Nothing left to do; `seen`: the serial of the last request taken.
    Idle {
        seen: u64,
    },
}

#[derive(Default)]
struct Pending {
    query: Option<(u64, Box<Query>, u64, u64)>,
    page: Option<(u64, u64, u64)>,
    detail: Option<i64>,
    clusters: Option<i64>,
    funnel: bool,
    seen: u64,
    closed: bool,
}

impl Pending {
    fn take(&mut self, (serial, req): Envelope) {
        self.seen = serial;
        match req {
            Request::Query {
                generation,
                query,
                offset,
                limit,
            } => {
                self.query = Some((generation, query, offset, limit));
                self.page = None;
            }
            Request::Page {
                generation,
                offset,
                limit,
            } => self.page = Some((generation, offset, limit)),
            Request::Detail(id) => self.detail = Some(id),
            Request::Clusters(id) => self.clusters = Some(id),
            Request::Funnel => self.funnel = true,
        }
    }

    fn is_empty(&self) -> bool {
        self.query.is_none()
            && self.page.is_none()
            && self.detail.is_none()
            && self.clusters.is_none()
            && !self.funnel
    }

    /// Take every request waiting in the channel (blocking for one when `wait`).
    fn drain(&mut self, rx: &Receiver<Envelope>, wait: bool) {
        if wait {
            match rx.recv() {
                Ok(env) => self.take(env),
                Err(_) => {
                    self.closed = true;
                    return;
                }
            }
        }
        loop {
            match rx.try_recv() {
                Ok(env) => self.take(env),
                Err(TryRecvError::Empty) => return,
                Err(TryRecvError::Disconnected) => {
                    self.closed = true;
                    return;
                }
            }
        }
    }
}

/// Where the current query is.
enum Stage {
    Done,
    /// Non-search: rows from `offset` next, then the count and the histogram (one pass).
    Rows {
        offset: u64,
        limit: u64,
    },
    Stats,
    /// Fuzzy search: scanning classes after `after` in store order (path, line, id).
    Scan {
        after: Option<(String, i64, i64)>,
        offset: u64,
        limit: u64,
    },
}

/// A fuzzy match: its score, the value of the histogram column, its place in store order,
/// the class id.
struct Match {
    score: u32,
    value: f64,
    seq: u64,
    id: i64,
}

struct Current {
    generation: u64,
    /// Classes a fuzzy scan went through so far.
    scanned: u64,
    query: Query,
    /// Fuzzy search: the matches so far, in list order.
    matches: Option<Vec<Match>>,
}

pub fn run(store: Store, rx: Receiver<Envelope>, tx: Sender<Reply>) {
    let mut w = Worker {
        store,
        tx,
        current: None,
        stage: Stage::Done,
    };
    let mut pending = Pending::default();
    loop {
        let idle = pending.is_empty() && matches!(w.stage, Stage::Done);
        if idle && w.tx.send(Reply::Idle { seen: pending.seen }).is_err() {
            return;
        }
        pending.drain(&rx, idle);
        if pending.closed {
            return;
        }
        if let Some((generation, query, offset, limit)) = pending.query.take() {
            w.start(generation, *query, offset, limit);
            continue;
        }
        let query = w.current.as_ref().map(|c| c.generation);
        let (result, of_query) = if let Some((generation, offset, limit)) = pending.page.take() {
            (w.page(generation, offset, limit), query)
        } else if let Some(id) = pending.detail.take() {
            (w.detail(id), None)
        } else if let Some(id) = pending.clusters.take() {
            (w.clusters(id), None)
        } else if std::mem::take(&mut pending.funnel) {
            (w.store.funnel().map(|f| w.send(Reply::Funnel(f))), None)
        } else {
            (w.step(&rx, &mut pending), query)
        };
        if let Err(e) = result
            && !is_interrupt(&e)
        {
            if of_query.is_some() {
                // The query cannot answer: no further stages.
                w.stage = Stage::Done;
            }
            let reply = Reply::Error {
                generation: of_query,
                message: format!("{e:#}"),
            };
            if w.tx.send(reply).is_err() {
                return;
            }
        }
    }
}

fn is_interrupt(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::OperationInterrupted
        )
    })
}

struct Worker {
    store: Store,
    tx: Sender<Reply>,
    current: Option<Current>,
    stage: Stage,
}

fn select_row(columns: &[String]) -> String {
    let mut sql = String::from("SELECT c.id, c.qualname, c.repo, c.path, c.line");
    for col in columns {
        sql.push_str(", ");
        sql.push_str(&numeric_column(col).unwrap_or_else(|| "NULL".into()));
    }
    sql.push_str(" FROM classes c");
    sql
}

fn row_of(r: &rusqlite::Row<'_>, n: usize) -> rusqlite::Result<Row> {
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        values.push(r.get::<_, Option<f64>>(5 + i)?);
    }
    Ok(Row {
        id: r.get(0)?,
        qualname: r.get(1)?,
        repo: r.get(2)?,
        path: r.get(3)?,
        line: r.get(4)?,
        values,
    })
}

fn order_by(sort: &Sort) -> String {
    match sort.column.as_deref().and_then(numeric_column) {
        None => "c.path, c.line, c.id".into(),
        Some(col) => {
            let dir = if sort.descending { "DESC" } else { "ASC" };
            format!("{col} {dir}, c.path, c.line, c.id")
        }
    }
}

impl Worker {
    fn send(&self, reply: Reply) {
        let _ = self.tx.send(reply);
    }

    fn start(&mut self, generation: u64, query: Query, offset: u64, limit: u64) {
        let search = !query.search.trim().is_empty();
        self.current = Some(Current {
            generation,
            scanned: 0,
            query,
            matches: search.then(Vec::new),
        });
        self.stage = if search {
            Stage::Scan {
                after: None,
                offset,
                limit,
            }
        } else {
            Stage::Rows { offset, limit }
        };
    }

    /// The next stage of the current query.
    fn step(&mut self, rx: &Receiver<Envelope>, pending: &mut Pending) -> anyhow::Result<()> {
        let Some(cur) = &self.current else {
            self.stage = Stage::Done;
            return Ok(());
        };
        let generation = cur.generation;
        match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Done => Ok(()),
            Stage::Rows { offset, limit } => {
                self.stage = Stage::Stats;
                self.page(generation, offset, limit)
            }
            Stage::Stats => self.stats(rx, pending),
            Stage::Scan {
                after,
                offset,
                limit,
            } => self.scan(after, offset, limit, rx, pending),
        }
    }

    /// The count and the histogram of the current list, from one pass over the values of the
    /// histogram's column. Filtered, it scans the table (`NOT INDEXED`): bounded by the table's
    /// size, where an index range over a broad condition costs a random read per row.
    fn stats(&mut self, rx: &Receiver<Envelope>, pending: &mut Pending) -> anyhow::Result<()> {
        let Some(cur) = &self.current else {
            return Ok(());
        };
        let q = &cur.query;
        let col = numeric_column(&q.hist_column).unwrap_or_else(|| "0".into());
        let hint = if q.filter.sql == Filter::all().sql {
            ""
        } else {
            "NOT INDEXED"
        };
        let sql = format!("SELECT {col} FROM classes c {hint} WHERE {}", q.filter.sql);
        let conn = self.store.connection();
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(&q.filter.params))?;
        let mut values = Vec::new();
        while let Some(r) = rows.next()? {
            values.push(r.get::<_, Option<f64>>(0)?.unwrap_or(0.0));
            // A newer query abandons this one.
            if values.len().is_multiple_of(16_384) {
                pending.drain(rx, false);
                if pending.query.is_some() || pending.closed {
                    return Ok(());
                }
            }
        }
        let generation = cur.generation;
        self.send(Reply::Count {
            generation,
            total: values.len() as u64,
            done: true,
        });
        self.send(Reply::Histogram {
            generation,
            histogram: histogram_of(&q.hist_column, values.iter().copied()),
        });
        Ok(())
    }

    /// One chunk of a fuzzy scan; the matches so far are sent after it.
    fn scan(
        &mut self,
        after: Option<(String, i64, i64)>,
        offset: u64,
        limit: u64,
        rx: &Receiver<Envelope>,
        pending: &mut Pending,
    ) -> anyhow::Result<()> {
        let Some(cur) = self.current.as_mut() else {
            return Ok(());
        };
        let q = &cur.query;
        let value_col = numeric_column(&q.hist_column).unwrap_or_else(|| "0".into());
        // A small first chunk, so that the first matches show at once.
        let chunk = if after.is_none() {
            FIRST_CHUNK
        } else {
            SCAN_CHUNK
        };
        // Keyset pagination over the (path, line) index: store order, each chunk one seek.
        let sql = format!(
            "SELECT c.id, c.qualname, c.path, {value_col}, c.line FROM classes c
             WHERE ({}) AND (c.path, c.line, c.id) > (?, ?, ?)
             ORDER BY c.path, c.line, c.id LIMIT {chunk}",
            q.filter.sql
        );
        let pattern = Pattern::parse(&q.search, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut buf = Vec::new();
        let mut hay = String::new();
        let mut params: Vec<Value> = q.filter.params.clone();
        let (p, l, i) = after.unwrap_or((String::new(), i64::MIN, i64::MIN));
        params.extend([Value::Text(p), Value::Integer(l), Value::Integer(i)]);
        let conn = self.store.connection();
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(params))?;
        let mut n = 0usize;
        let mut last = (String::new(), i64::MIN, i64::MIN);
        let found = cur.matches.get_or_insert_with(Vec::new);
        let mut seq = cur.scanned;
        let before = found.len();
        let started = Instant::now();
        while let Some(r) = rows.next()? {
            n += 1;
            let id: i64 = r.get(0)?;
            seq += 1;
            hay.clear();
            hay.push_str(r.get_ref(1)?.as_str().unwrap_or(""));
            hay.push(' ');
            hay.push_str(r.get_ref(2)?.as_str().unwrap_or(""));
            if let Some(score) = pattern.score(Utf32Str::new(&hay, &mut buf), &mut matcher) {
                let value = r.get::<_, Option<f64>>(3)?.unwrap_or(0.0);
                found.push(Match {
                    score,
                    value,
                    seq,
                    id,
                });
            }
            if n == chunk {
                last = (r.get(2)?, r.get(4)?, id);
            }
            // Stay responsive: a newer query abandons this chunk.
            if n.is_multiple_of(4096) && started.elapsed() > Duration::from_millis(30) {
                pending.drain(rx, false);
                if pending.query.is_some() || pending.closed {
                    return Ok(());
                }
            }
        }
        drop(rows);
        drop(stmt);
        cur.scanned = seq;
        let finished = n < chunk;
        sort_matches(found, &q.sort);
        let total = found.len() as u64;
        let generation = cur.generation;
        let changed = found.len() != before;
        if finished {
            let histogram = histogram_of(&q.hist_column, found.iter().map(|m| m.value));
            self.send(Reply::Count {
                generation,
                total,
                done: true,
            });
            self.send(Reply::Histogram {
                generation,
                histogram,
            });
        } else {
            self.send(Reply::Count {
                generation,
                total,
                done: false,
            });
            self.stage = Stage::Scan {
                after: Some(last),
                offset,
                limit,
            };
        }
        if changed || finished {
            self.page(generation, offset, limit)?;
        }
        Ok(())
    }

    fn page(&self, generation: u64, offset: u64, limit: u64) -> anyhow::Result<()> {
        let Some(cur) = &self.current else {
            return Ok(());
        };
        if cur.generation != generation {
            return Ok(());
        }
        let q = &cur.query;
        let rows = match &cur.matches {
            None => {
                let sql = format!(
                    "{} WHERE {} ORDER BY {} LIMIT {limit} OFFSET {offset}",
                    select_row(&q.columns),
                    q.filter.sql,
                    order_by(&q.sort)
                );
                let conn = self.store.connection();
                let mut stmt = conn.prepare_cached(&sql)?;
                stmt.query_map(params_from_iter(&q.filter.params), |r| {
                    row_of(r, q.columns.len())
                })?
                .collect::<Result<Vec<_>, _>>()?
            }
            Some(found) => {
                let from = (offset as usize).min(found.len());
                let to = (from + limit as usize).min(found.len());
                let ids: Vec<i64> = found[from..to].iter().map(|m| m.id).collect();
                self.rows_by_id(&q.columns, &ids)?
            }
        };
        self.send(Reply::Rows {
            generation,
            offset,
            rows,
        });
        Ok(())
    }

    /// Rows of these classes, in this order.
    fn rows_by_id(&self, columns: &[String], ids: &[i64]) -> anyhow::Result<Vec<Row>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = ids.iter().map(i64::to_string).collect();
        let sql = format!("{} WHERE c.id IN ({})", select_row(columns), list.join(","));
        let conn = self.store.connection();
        let mut stmt = conn.prepare(&sql)?;
        let mut by_id: HashMap<i64, Row> = stmt
            .query_map([], |r| row_of(r, columns.len()))?
            .map(|r| r.map(|row| (row.id, row)))
            .collect::<Result<_, _>>()?;
        Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
    }

    fn detail(&self, id: i64) -> anyhow::Result<()> {
        let Some(line) = self.store.line(id)? else {
            anyhow::bail!("class {id} is not in the store");
        };
        let text = self
            .store
            .text(id)?
            .unwrap_or_else(|| crate::corpus::query::ClassText {
                code: String::new(),
                skeleton: String::new(),
                docstring: None,
            });
        let conn = self.store.connection();
        let mut stmt = conn.prepare_cached(
            "SELECT name, signature, line, docstring IS NOT NULL AND docstring != ''
             FROM methods WHERE seq = (SELECT seq FROM classes WHERE id = ?1) ORDER BY idx",
        )?;
        let methods = stmt
            .query_map(params![id], |r| {
                Ok(Method {
                    name: r.get(0)?,
                    signature: r.get(1)?,
                    line: r.get(2)?,
                    documented: r.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let edges = line
            .edges
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| {
                        let pair = e.as_array()?;
                        Some((
                            pair.first()?.as_str()?.to_string(),
                            pair.get(1)?.as_str()?.to_string(),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let deps = ["stdlib", "third_party", "internal"]
            .iter()
            .map(|k| {
                let names = line
                    .deps
                    .get(k)
                    .and_then(Json::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                ((*k).to_string(), names)
            })
            .collect();
        let metrics = line
            .metrics
            .iter()
            .map(|(k, v)| (k.clone(), v.as_f64().unwrap_or(0.0)))
            .collect();
        self.send(Reply::Detail(Box::new(Detail {
            id,
            qualname: line.qualname,
            repo: line.repo,
            path: line.path,
            line: line.line,
            end_line: line.end_line,
            code: text.code,
            skeleton: text.skeleton,
            docstring: text.docstring,
            method_count: line.methods.len(),
            methods,
            edges,
            deps,
            metrics,
            total_program_units: line.total_program_units,
            total_doc_str: line.total_doc_str,
            self_contained: line.self_contained,
            dup_cluster: line.dup_cluster,
            near_dup_cluster: line.near_dup_cluster,
        })));
        Ok(())
    }

    fn clusters(&self, id: i64) -> anyhow::Result<()> {
        let c = self.store.clusters(id)?;
        let mut ids = c.exact.clone();
        ids.extend(c.near.iter().filter(|i| !c.exact.contains(i)));
        let exact = c.exact.len();
        let columns: Vec<String> = Vec::new();
        let members = self.rows_by_id(&columns, &ids)?;
        self.send(Reply::Clusters { id, members, exact });
        Ok(())
    }
}

fn sort_matches(found: &mut [Match], sort: &Sort) {
    match sort.column {
        None => found.sort_by(|a, b| b.score.cmp(&a.score).then(a.seq.cmp(&b.seq))),
        Some(_) => found.sort_by(|a, b| {
            let o = a.value.total_cmp(&b.value);
            let o = if sort.descending { o.reverse() } else { o };
            o.then(b.score.cmp(&a.score)).then(a.seq.cmp(&b.seq))
        }),
    }
}

/// The histogram of some values in [`BINS`] buckets, as `Store::histogram` makes it: bucket i
/// covers [min + i·w, min + (i+1)·w), the last includes max.
fn histogram_of(column: &str, values: impl Iterator<Item = f64> + Clone) -> Histogram {
    let mut counts = vec![0u64; BINS];
    let (mut min, mut max, mut n) = (f64::INFINITY, f64::NEG_INFINITY, 0usize);
    for v in values.clone() {
        min = min.min(v);
        max = max.max(v);
        n += 1;
    }
    if n == 0 {
        return Histogram {
            column: column.into(),
            min: 0.0,
            max: 0.0,
            counts,
        };
    }
    let width = if max > min {
        (max - min) / BINS as f64
    } else {
        1.0
    };
    for v in values {
        let b = (((v - min) / width) as usize).min(BINS - 1);
        counts[b] += 1;
    }
    Histogram {
        column: column.into(),
        min,
        max,
        counts,
    }
}

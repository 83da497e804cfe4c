//! The long task list's filter and sort, on a thread of its own. Rows arrive as the dataset
//! streams in (and change as analyses fill their counts); matching is nucleo's `Nucleo`, which
//! keeps every row's haystack once and rematches only the previous matches when the filter
//! grows by a character. Requests queue up; only the newest waiting one is answered, as
//! [`Action::TasksFiltered`] with the same [`Found`] that [`super::list::find`] gives.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

use nucleo::pattern::{CaseMatching, Normalization, Pattern};
use nucleo::{Config, Matcher, Nucleo, Utf32String};

use super::action::{Action, Delivered, SortColumn};
use super::data::TaskRow;
use super::list::{Found, ListQuery, compare};

enum Msg {
    Append(Vec<TaskRow>),
    Update(Vec<(usize, TaskRow)>),
    Query(u64, ListQuery),
}

pub struct FilterWorker {
    requests: Sender<Msg>,
    results: Receiver<(u64, Found)>,
}

impl FilterWorker {
    /// A worker over `rows` (more come with [`FilterWorker::append`]).
    pub fn spawn(rows: Vec<TaskRow>) -> std::io::Result<FilterWorker> {
        let (requests, inbox) = mpsc::channel::<Msg>();
        let (outbox, results) = mpsc::channel();
        std::thread::Builder::new()
            .name("classlab-filter".into())
            .spawn(move || {
                let mut state = State::new();
                state.append(rows);
                while let Ok(first) = inbox.recv() {
                    // Every row change applies; of the queries only the newest is answered.
                    let mut query = None;
                    for msg in std::iter::once(first).chain(inbox.try_iter()) {
                        match msg {
                            Msg::Append(rows) => state.append(rows),
                            Msg::Update(rows) => state.update(rows),
                            Msg::Query(req, q) => query = Some((req, q)),
                        }
                    }
                    let Some((req, q)) = query else { continue };
                    if outbox.send((req, state.find(&q))).is_err() {
                        break;
                    }
                }
            })?;
        Ok(FilterWorker { requests, results })
    }

    /// Rows after those the worker has.
    pub fn append(&self, rows: Vec<TaskRow>) {
        // A worker that is gone leaves the list as it is; nothing to report.
        let _ = self.requests.send(Msg::Append(rows));
    }

    /// Rows whose counts changed, by index.
    pub fn update(&self, rows: Vec<(usize, TaskRow)>) {
        let _ = self.requests.send(Msg::Update(rows));
    }

    pub fn request(&self, req: u64, query: ListQuery) {
        let _ = self.requests.send(Msg::Query(req, query));
    }

    /// An answer, if one is ready.
    pub fn try_recv(&self) -> Option<Action> {
        self.results
            .try_recv()
            .ok()
            .map(|(req, found)| Action::TasksFiltered {
                req,
                found: Delivered::new(found),
            })
    }
}

struct State {
    rows: Vec<TaskRow>,
    nucleo: Nucleo<u32>,
    /// The filter nucleo matched last (a longer one starting with it rematches less).
    last: String,
    /// Task indices in the order of a sort column, while the rows stay the same.
    order: Option<(SortColumn, Vec<u32>)>,
    /// First task by lower-case id and by lower-case class (the exact match of a filter).
    ids: HashMap<String, usize>,
    classes: HashMap<String, usize>,
    matcher: Matcher,
}

impl State {
    fn new() -> State {
        State {
            rows: Vec::new(),
            // One matching thread: the UI, the loader and the analysis need the others.
            nucleo: Nucleo::new(Config::DEFAULT, Arc::new(|| {}), Some(1), 1),
            last: String::new(),
            order: None,
            ids: HashMap::new(),
            classes: HashMap::new(),
            matcher: Matcher::new(Config::DEFAULT),
        }
    }

    fn append(&mut self, rows: Vec<TaskRow>) {
        if rows.is_empty() {
            return;
        }
        let injector = self.nucleo.injector();
        for row in rows {
            let i = self.rows.len();
            self.ids.entry(row.id.to_ascii_lowercase()).or_insert(i);
            self.classes
                .entry(row.class.to_ascii_lowercase())
                .or_insert(i);
            let hay = format!("{} {}", row.id, row.class);
            injector.push(i as u32, move |_, cols| cols[0] = hay.into());
            self.rows.push(row);
        }
        self.order = None;
    }

    fn update(&mut self, rows: Vec<(usize, TaskRow)>) {
        for (i, row) in rows {
            if let Some(slot) = self.rows.get_mut(i) {
                *slot = row;
            }
        }
        // Ids and classes do not change; the counts' orders do.
        if let Some((column, _)) = &self.order
            && !matches!(column, SortColumn::Id | SortColumn::Class)
        {
            self.order = None;
        }
    }

    fn sorted(&mut self, column: SortColumn) -> &[u32] {
        if self.order.as_ref().is_none_or(|(c, _)| *c != column) {
            let rows = &self.rows;
            let mut order: Vec<u32> = (0..rows.len() as u32).collect();
            order.sort_by(|&a, &b| compare(rows, column, a as usize, b as usize));
            self.order = Some((column, order));
        }
        self.order.as_ref().map_or(&[], |(_, o)| o.as_slice())
    }

    fn find(&mut self, query: &ListQuery) -> Found {
        let needle = query.filter.trim();
        let mut hits: Vec<Option<(u32, Vec<u32>)>> = vec![None; self.rows.len()];
        if needle.is_empty() {
            hits.fill(Some((0, Vec::new())));
        } else {
            let append = !self.last.is_empty() && query.filter.starts_with(&self.last);
            self.nucleo.pattern.reparse(
                0,
                &query.filter,
                CaseMatching::Smart,
                Normalization::Smart,
                append,
            );
            self.last = query.filter.clone();
            while self.nucleo.tick(10).running {}
            // Nucleo says which rows match; their score and positions (for the highlight)
            // are what the one-shot matcher gives, so both paths show the same.
            let pattern = Pattern::parse(&query.filter, CaseMatching::Smart, Normalization::Smart);
            let snapshot = self.nucleo.snapshot();
            for item in snapshot.matched_items(..) {
                let i = *item.data as usize;
                let hay: &Utf32String = &item.matcher_columns[0];
                let mut indices = Vec::new();
                if let Some(score) = pattern.indices(hay.slice(..), &mut self.matcher, &mut indices)
                    && let Some(slot) = hits.get_mut(i)
                {
                    indices.sort_unstable();
                    indices.dedup();
                    *slot = Some((score, indices));
                }
            }
        }
        let order = self.sorted(query.sort).to_vec();
        let mut rows = Vec::new();
        let ordered: Box<dyn Iterator<Item = &u32>> = if query.reverse {
            Box::new(order.iter().rev())
        } else {
            Box::new(order.iter())
        };
        for &i in ordered {
            if let Some((score, indices)) = hits[i as usize].take() {
                rows.push((i as usize, score, indices));
            }
        }
        let exact = (!needle.is_empty())
            .then(|| {
                let key = needle.to_ascii_lowercase();
                self.ids
                    .get(&key)
                    .or_else(|| self.classes.get(&key))
                    .copied()
            })
            .flatten();
        Found { rows, exact }
    }
}

#[cfg(test)]
mod tests {
    use super::super::list::find;
    use super::*;

    fn row(id: &str, class: &str, methods: usize) -> TaskRow {
        TaskRow {
            id: id.into(),
            class: class.into(),
            methods,
            deps: 0,
            tests: 0,
            analysed: true,
        }
    }

    #[test]
    fn nucleo_finds_what_the_one_shot_filter_finds() {
        let rows: Vec<TaskRow> = (0..300)
            .map(|i| {
                row(
                    &format!("T_{i}"),
                    ["Zeta", "alpha", "RateLimiter"][i % 3],
                    i % 7,
                )
            })
            .collect();
        let mut state = State::new();
        state.append(rows[..100].to_vec());
        state.append(rows[100..].to_vec());
        for (filter, sort, reverse) in [
            ("", SortColumn::Id, false),
            ("ra", SortColumn::Methods, false),
            ("rat", SortColumn::Methods, true),
            ("rate", SortColumn::Class, false),
            ("t_1", SortColumn::Id, false),
            ("T_12", SortColumn::Id, false),
            ("zeta", SortColumn::Tests, false),
            ("qqq", SortColumn::Id, false),
        ] {
            let q = ListQuery {
                filter: filter.into(),
                sort,
                reverse,
            };
            assert_eq!(state.find(&q), find(&rows, &q), "{filter:?} {sort:?}");
        }
        state.update(vec![(5, row("T_5", "Zeta", 99))]);
        let mut rows = rows;
        rows[5].methods = 99;
        let q = ListQuery {
            filter: "z".into(),
            sort: SortColumn::Methods,
            reverse: true,
        };
        assert_eq!(state.find(&q), find(&rows, &q));
    }
}

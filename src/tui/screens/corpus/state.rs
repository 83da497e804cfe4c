//! The corpus browser's state: plain data. The rows shown are a window of the list (fetched
//! around the viewport by the worker); everything else arrives on demand.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};

use rusqlite::InterruptHandle;

use crate::corpus::filter::FilterError;
use crate::corpus::funnel::Funnel;
use crate::corpus::query::{Histogram, Sort};
use crate::corpus::{Filter, Store};

pub use super::rows::{Detail, Method, Row};
use super::worker::{self, Envelope, Query, Reply, Request};

/// Metric columns shown at first (the lead's config may set [`State::columns`]).
pub const DEFAULT_COLUMNS: &[&str] = &["CountLineCode", "CountDeclMethod", "SumCyclomatic", "doc"];

/// Every column a sort may use, in the order `s` steps through them (after the shown ones).
pub const SORTABLE_EXTRA: &[&str] = &[
    "methods",
    "tokens",
    "total_program_units",
    "total_doc_str",
    "line",
];

/// Rows fetched around the viewport.
pub const WINDOW: u64 = 240;

/// What the text input at the bottom of the list edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The filter expression (`corpus query`'s language).
    Filter,
    /// Fuzzy text over qualified names and paths.
    Search,
}

/// The panel beside (or below) the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    Distribution,
    Funnel,
    Duplicates,
}

impl Panel {
    pub const ALL: [Panel; 3] = [Panel::Distribution, Panel::Funnel, Panel::Duplicates];

    pub fn title(self) -> &'static str {
        match self {
            Panel::Distribution => "Distribution",
            Panel::Funnel => "Funnel",
            Panel::Duplicates => "Duplicates",
        }
    }
}

/// The panes of an opened class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Code,
    Skeleton,
    Methods,
    Graph,
    Metrics,
}

impl Pane {
    pub const ALL: [Pane; 5] = [
        Pane::Code,
        Pane::Skeleton,
        Pane::Methods,
        Pane::Graph,
        Pane::Metrics,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Code => "Code",
            Pane::Skeleton => "Skeleton",
            Pane::Methods => "Methods",
            Pane::Graph => "Dependencies",
            Pane::Metrics => "Metrics",
        }
    }
}

/// A class's duplicate clusters, for the panel and the jumps between members.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// The class they were asked for.
    pub id: i64,
    /// Members in store order: exact duplicates first, then near ones.
    pub members: Vec<Row>,
    /// How many of `members` are exact duplicates.
    pub exact: usize,
}

/// The class view (Enter): the class being read, or the id asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassView {
    pub id: i64,
    pub detail: Option<Detail>,
    pub pane: Pane,
    pub scroll: usize,
    /// Columns scrolled right in the code panes.
    pub left: usize,
}

pub struct State {
    pub path: PathBuf,
    pub columns: Vec<String>,
    pub sort: Sort,
    /// The filter expression as typed, and the one applied.
    pub filter_text: String,
    pub filter: Filter,
    pub filter_error: Option<FilterError>,
    pub search: String,
    /// Editing the filter or the search; the value before editing (Esc restores it).
    pub input: Option<(Input, String)>,
    /// Which query the rows answer (bumped by every change of filter, search or sort).
    pub generation: u64,
    /// Classes in the list: `None` until counted; while a fuzzy scan runs, so far.
    pub total: Option<u64>,
    pub counting: bool,
    pub window_start: u64,
    pub rows: Vec<Row>,
    /// The page asked for last (not asked again while waiting).
    pub asked: Option<(u64, u64)>,
    pub selected: u64,
    pub offset: u64,
    pub panel: Option<Panel>,
    /// The last panel shown (the panel key brings it back).
    pub last_panel: Panel,
    pub histogram: Option<Histogram>,
    pub funnel: Option<Funnel>,
    pub funnel_asked: bool,
    pub cluster: Option<Cluster>,
    pub cluster_asked: Option<i64>,
    /// A jump between duplicates waiting for the cluster: (origin, from, step).
    pub pending_jump: Option<(i64, i64, i64)>,
    pub class: Option<ClassView>,
    /// Why the current list could not be read (a full-text query SQLite rejects, say).
    pub error: Option<String>,
    /// The store's last build did not finish (what to run, from `Store::unfinished`).
    pub unfinished: Option<String>,
    pub(super) tx: Sender<Envelope>,
    pub(super) rx: Receiver<Reply>,
    pub(super) interrupt: InterruptHandle,
    pub(super) serial: u64,
    pub(super) seen: u64,
}

impl State {
    /// Open the store at `path` (a clear error when it is not one) and start the worker, which
    /// reads the first page at once.
    pub fn open(path: &Path) -> anyhow::Result<State> {
        let store = Store::open(path)?;
        let unfinished = store.unfinished()?;
        let interrupt = store.connection().get_interrupt_handle();
        let (tx, worker_rx) = mpsc::channel();
        let (worker_tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("corpus-browser".into())
            .spawn(move || worker::run(store, worker_rx, worker_tx))?;
        let mut st = State {
            path: path.to_path_buf(),
            columns: DEFAULT_COLUMNS.iter().map(|c| c.to_string()).collect(),
            sort: Sort::default(),
            filter_text: String::new(),
            filter: Filter::all(),
            filter_error: None,
            search: String::new(),
            input: None,
            generation: 0,
            total: None,
            counting: false,
            window_start: 0,
            rows: Vec::new(),
            asked: None,
            selected: 0,
            offset: 0,
            panel: Some(Panel::Distribution),
            last_panel: Panel::Distribution,
            histogram: None,
            funnel: None,
            funnel_asked: false,
            cluster: None,
            cluster_asked: None,
            pending_jump: None,
            class: None,
            error: None,
            unfinished,
            tx,
            rx,
            interrupt,
            serial: 0,
            seen: 0,
        };
        st.requery();
        Ok(st)
    }

    /// Show these metric columns (a config's choice); names that are not a metric or numeric
    /// field are left out and returned.
    pub fn set_columns(&mut self, columns: &[String]) -> Vec<String> {
        let (good, bad): (Vec<String>, Vec<String>) = columns
            .iter()
            .cloned()
            .partition(|c| crate::corpus::filter::numeric_column(c).is_some());
        if good != self.columns {
            self.columns = good;
            self.requery();
        }
        bad
    }

    /// The column the histogram shows: the sorted one, else the first shown.
    pub fn hist_column(&self) -> String {
        self.sort
            .column
            .clone()
            .or_else(|| self.columns.first().cloned())
            .unwrap_or_else(|| "CountLineCode".into())
    }

    /// The columns shown: the chosen ones and the sorted one when it is not among them.
    pub fn shown_columns(&self) -> Vec<String> {
        let mut cols = self.columns.clone();
        if let Some(c) = &self.sort.column
            && !cols.contains(c)
        {
            cols.push(c.clone());
        }
        cols
    }

    /// Every column a sort steps through: store order, the shown metrics, the other fields,
    /// then every other metric.
    pub fn sortable(&self) -> Vec<Option<String>> {
        let mut out: Vec<Option<String>> = vec![None];
        let mut push = |c: &str| {
            if !out.iter().any(|o| o.as_deref() == Some(c)) {
                out.push(Some(c.to_string()));
            }
        };
        for c in &self.columns {
            push(c);
        }
        for c in SORTABLE_EXTRA {
            push(c);
        }
        for c in crate::analysis::metrics::METRIC_NAMES {
            push(c);
        }
        out
    }

    pub(super) fn send(&mut self, req: Request) {
        self.serial += 1;
        let _ = self.tx.send((self.serial, req));
    }

    /// Ask for the list again (filter, search, sort or columns changed); the SQL statement
    /// under way is interrupted.
    pub fn requery(&mut self) {
        self.generation += 1;
        self.error = None;
        self.interrupt.interrupt();
        self.total = None;
        self.counting = true;
        self.rows.clear();
        self.window_start = 0;
        self.selected = 0;
        self.offset = 0;
        self.histogram = None;
        self.asked = Some((0, WINDOW));
        let query = Query {
            filter: self.filter.clone(),
            search: self.search.clone(),
            sort: self.sort.clone(),
            columns: self.shown_columns(),
            hist_column: self.hist_column(),
        };
        self.send(Request::Query {
            generation: self.generation,
            query: Box::new(query),
            offset: 0,
            limit: WINDOW,
        });
    }

    /// The row at list position `i`, when fetched.
    pub fn row(&self, i: u64) -> Option<&Row> {
        let k = i.checked_sub(self.window_start)?;
        self.rows.get(usize::try_from(k).ok()?)
    }

    /// How many rows the list can move through now (what is counted, or fetched so far).
    pub fn len(&self) -> u64 {
        self.total
            .unwrap_or(self.window_start + self.rows.len() as u64)
            .max(if self.counting {
                self.window_start + self.rows.len() as u64
            } else {
                0
            })
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first row shown in a list of `rows` rows: the scroll offset, moved as little as
    /// needed to show the selection.
    pub fn view_top(&self, rows: u64) -> u64 {
        let rows = rows.max(1);
        if self.selected < self.offset {
            self.selected
        } else if self.selected >= self.offset + rows {
            self.selected + 1 - rows
        } else {
            self.offset
        }
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.row(self.selected)
    }

    /// Work asked of the worker is not answered yet.
    pub fn waiting(&self) -> bool {
        self.seen < self.serial
    }
}

impl Drop for State {
    fn drop(&mut self) {
        // The worker ends when its channel closes; stop what it runs now.
        self.interrupt.interrupt();
    }
}

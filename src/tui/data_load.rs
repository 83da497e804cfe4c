//! Filling [`Data`] in from the background: batches of tasks from the streaming loader, then
//! their analyses from the [`AnalysisService`] — the tasks on screen and the open task first,
//! then the rest in file order. Analyses are cached by content hash: every task keeps a slim
//! copy (graphs, counts), whole ones are kept only for the tasks opened lately.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use super::analysis::{Analysed, AnalysisService, slim};
use super::data::{Data, TaskRow, checks, truth_graph};
use crate::analysis::TaskAnalysis;
use crate::dataset::predictions::DepFile;
use crate::dataset::stream::Streamed;
use crate::dataset::{Dataset, Format};
use crate::depcheck::{DepCheck, GroundTruth};
use crate::model::{Method, Task};

/// Whole analyses kept for the tasks opened lately, by content hash.
#[derive(Default)]
pub struct FullCache {
    map: HashMap<u64, Arc<TaskAnalysis>>,
    order: VecDeque<u64>,
}

/// Whole analyses kept at once (a parsed task is several times its text).
const FULL_CACHED: usize = 32;

impl FullCache {
    pub fn get(&self, hash: u64) -> Option<&TaskAnalysis> {
        self.map.get(&hash).map(Arc::as_ref)
    }

    fn insert(&mut self, hash: u64, full: Arc<TaskAnalysis>) {
        if self.map.insert(hash, full).is_none() {
            self.order.push_back(hash);
        }
        while self.order.len() > FULL_CACHED {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
    }
}

type Checks = (Option<DepCheck>, DepCheck);

/// The state of a dataset being loaded and analysed in the background.
pub struct Loading {
    /// The loader (`None` once every task arrived).
    rx: Option<Receiver<Streamed>>,
    /// Bytes read of the file and its size (0: unknown).
    pub read: u64,
    pub total: u64,
    /// Content hash per task.
    pub(super) hashes: Vec<u64>,
    /// Tasks analysed so far.
    pub analysed: usize,
    service: AnalysisService,
    slim_cache: HashMap<u64, Arc<TaskAnalysis>>,
    pub(super) full: FullCache,
    /// Tasks waiting for the analysis of their hash (already requested).
    waiting: HashMap<u64, Vec<usize>>,
    queued: Vec<bool>,
    /// Hashes requested and not answered.
    requested: HashSet<u64>,
    /// Where the background pass goes on.
    cursor: usize,
    checks: Option<Receiver<Checks>>,
    checks_started: bool,
}

/// What a pump changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pumped {
    /// Tasks arrived (the list has new rows).
    pub appended: bool,
    /// Rows' counts changed (analyses arrived).
    pub counts: bool,
    /// Anything else the screen shows (progress, checks, loading finished).
    pub other: bool,
}

impl Pumped {
    pub fn any(&self) -> bool {
        self.appended || self.counts || self.other
    }
}

/// Time one pump may take on the UI thread.
const BUDGET: Duration = Duration::from_millis(4);

impl Data {
    /// An empty dataset that fills in from `rx` (see [`crate::dataset::stream::stream`]).
    pub fn streaming(
        rx: Receiver<Streamed>,
        name: String,
        origin: String,
        predictions: Option<DepFile>,
        truth: GroundTruth,
    ) -> Data {
        let dataset = Dataset {
            name,
            origin,
            format: Format::ClassEval,
            tasks: Vec::new(),
            problems: Vec::new(),
        };
        let mut data = Data::empty(dataset, predictions, truth);
        data.loading = Some(Loading {
            rx: Some(rx),
            read: 0,
            total: 0,
            hashes: Vec::new(),
            analysed: 0,
            service: AnalysisService::new(),
            slim_cache: HashMap::new(),
            full: FullCache::default(),
            waiting: HashMap::new(),
            queued: Vec::new(),
            requested: HashSet::new(),
            cursor: 0,
            checks: None,
            checks_started: false,
        });
        data
    }

    /// The file is still being read.
    pub fn is_loading(&self) -> bool {
        self.loading.as_ref().is_some_and(|l| l.rx.is_some())
    }

    /// Background work left: reading, analysing or the dataset-wide checks.
    pub fn is_busy(&self) -> bool {
        self.loading
            .as_ref()
            .is_some_and(|l| l.rx.is_some() || l.analysed < l.hashes.len() || !l.checks_done())
    }

    pub fn loading(&self) -> Option<&Loading> {
        self.loading.as_ref()
    }

    /// Take in what the background sent, and hand it more work: `open` is the task shown
    /// whole (its full analysis is wanted), `visible` the rows on screen.
    pub fn pump(&mut self, open: Option<usize>, visible: &[usize]) -> Pumped {
        let Some(mut l) = self.loading.take() else {
            return Pumped::default();
        };
        let start = Instant::now();
        let mut out = Pumped::default();
        self.receive_tasks(&mut l, start, &mut out);
        // Whole analyses are kept for the open task only (the cache holds the last opened).
        let whole = open.and_then(|i| l.hashes.get(i).copied());
        while let Some(Analysed { hash, full }) = l.service.try_recv() {
            l.requested.remove(&hash);
            let s = Arc::new(slim(&full));
            l.slim_cache.insert(hash, Arc::clone(&s));
            if Some(hash) == whole {
                l.full.insert(hash, full);
                out.other = true;
            }
            for idx in l.waiting.remove(&hash).unwrap_or_default() {
                self.fill(&mut l, idx, &s);
            }
            out.counts = true;
        }
        for idx in open.into_iter().chain(visible.iter().copied()) {
            let whole = Some(idx) == open;
            self.want(&mut l, idx, whole, &mut out);
        }
        self.background(&mut l, start, &mut out);
        self.checks(&mut l, &mut out);
        self.loading = Some(l);
        out
    }

    fn receive_tasks(&mut self, l: &mut Loading, start: Instant, out: &mut Pumped) {
        while start.elapsed() < BUDGET {
            let Some(rx) = &l.rx else { return };
            let msg = match rx.try_recv() {
                Ok(msg) => msg,
                Err(mpsc::TryRecvError::Empty) => return,
                Err(mpsc::TryRecvError::Disconnected) => {
                    l.rx = None;
                    out.other = true;
                    return;
                }
            };
            out.other = true;
            match msg {
                Streamed::Batch(batch) => {
                    self.problems
                        .extend(batch.problems.iter().map(ToString::to_string));
                    (l.read, l.total) = (batch.read, batch.total);
                    let parts = batch.tasks.into_iter().zip(batch.hashes).zip(batch.tests);
                    for ((task, hash), tests) in parts {
                        self.id_chars = self.id_chars.max(task.id.chars().count());
                        self.method_total += task.methods.len();
                        self.rows.push(TaskRow::raw(&task, tests));
                        self.slim.push(None);
                        self.truth_graphs.push(None);
                        self.dataset.tasks.push(task);
                        l.hashes.push(hash);
                        l.queued.push(false);
                        out.appended = true;
                    }
                }
                Streamed::Done { format } => {
                    self.dataset.format = format;
                    l.rx = None;
                }
                Streamed::Failed(e) => {
                    self.problems.push(e.to_string());
                    l.rx = None;
                }
            }
        }
    }

    fn fill(&mut self, l: &mut Loading, idx: usize, s: &Arc<TaskAnalysis>) {
        let Some(slot) = self.slim.get_mut(idx) else {
            return;
        };
        if slot.is_none() {
            l.analysed += 1;
        }
        *slot = Some(Arc::clone(s));
        if let (Some(row), Some(task)) = (self.rows.get_mut(idx), self.dataset.tasks.get(idx)) {
            self.edge_total -= row.deps;
            row.fill(s);
            self.edge_total += row.deps;
            self.changed_rows.push(idx);
            self.truth_graphs[idx] = truth_graph(&self.truth, &task.id, s);
        }
    }

    /// Make sure task `idx` is analysed (and `whole`: its full analysis is at hand).
    fn want(&mut self, l: &mut Loading, idx: usize, whole: bool, out: &mut Pumped) {
        let Some(&hash) = l.hashes.get(idx) else {
            return;
        };
        if self.slim.get(idx).is_some_and(Option::is_none)
            && let Some(s) = l.slim_cache.get(&hash).cloned()
        {
            self.fill(l, idx, &s);
            out.counts = true;
        }
        let missing = self.slim[idx].is_none() || (whole && l.full.get(hash).is_none());
        if !missing {
            return;
        }
        if self.slim[idx].is_none() && !l.queued[idx] {
            l.queued[idx] = true;
            l.waiting.entry(hash).or_default().push(idx);
        }
        if l.requested.insert(hash) {
            l.service.request(hash, self.dataset.tasks[idx].clone());
        }
    }

    /// The rest in file order, keeping the pool busy and no more (each request copies a task).
    fn background(&mut self, l: &mut Loading, start: Instant, out: &mut Pumped) {
        let most = l.service.width() * 2;
        while l.cursor < l.hashes.len() && start.elapsed() < BUDGET {
            let idx = l.cursor;
            let hash = l.hashes[idx];
            let cached = l.slim_cache.contains_key(&hash) || l.requested.contains(&hash);
            if self.slim[idx].is_none() && !cached && l.service.in_flight >= most {
                return;
            }
            self.want(l, idx, false, out);
            l.cursor += 1;
        }
    }

    /// Once every task is analysed: the dataset-wide checks, on a thread of their own.
    fn checks(&mut self, l: &mut Loading, out: &mut Pumped) {
        if let Some(rx) = &l.checks
            && let Ok((check, agreement)) = rx.try_recv()
        {
            l.checks = None;
            self.set_checks(check, agreement);
            out.other = true;
        }
        if l.checks_started || l.rx.is_some() || l.analysed < l.hashes.len() {
            return;
        }
        l.checks_started = true;
        let dataset = Dataset {
            tasks: self.dataset.tasks.iter().map(skinny).collect(),
            problems: Vec::new(),
            ..self.dataset.clone_empty()
        };
        let slims: Vec<Arc<TaskAnalysis>> = self.slim.iter().flatten().cloned().collect();
        let (predictions, truth) = (self.predictions.clone(), self.truth.clone());
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("classlab-checks".into())
            .spawn(move || {
                let analyses: Vec<TaskAnalysis> = slims.iter().map(|a| (**a).clone()).collect();
                let _ = tx.send(checks(&dataset, &analyses, predictions.as_ref(), &truth));
            });
        if spawned.is_ok() {
            l.checks = Some(rx);
        }
    }
}

impl Loading {
    fn checks_done(&self) -> bool {
        self.checks_started && self.checks.is_none()
    }

    /// Tasks read so far.
    pub fn tasks(&self) -> usize {
        self.hashes.len()
    }
}

trait CloneEmpty {
    fn clone_empty(&self) -> Dataset;
}

impl CloneEmpty for Dataset {
    /// The dataset's name, origin and format without its tasks.
    fn clone_empty(&self) -> Dataset {
        Dataset {
            name: self.name.clone(),
            origin: self.origin.clone(),
            format: self.format,
            tasks: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// What the checks read of a task: its id and its methods' names and annotations.
fn skinny(task: &Task) -> Task {
    Task {
        id: task.id.clone(),
        class_name: task.class_name.clone(),
        description: String::new(),
        imports: Vec::new(),
        constructor: String::new(),
        fields: Vec::new(),
        skeleton: String::new(),
        solution: String::new(),
        test_module: String::new(),
        test_classes: Vec::new(),
        methods: task
            .methods
            .iter()
            .map(|m| Method {
                name: m.name.clone(),
                description: String::new(),
                test_class: None,
                test_code: String::new(),
                solution: String::new(),
                annotated: m.annotated.clone(),
                public_tests: None,
            })
            .collect(),
        test_layout: task.test_layout.clone(),
        provenance: task.provenance.clone(),
    }
}

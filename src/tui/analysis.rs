//! Task analysis off the UI thread: a small rayon pool analyses the tasks it is handed, the
//! newest request first, and answers by message. What comes back is cached by the task's
//! content hash (see `data_load`), so a task repeated under another id is analysed once.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use crate::analysis::{Module, TaskAnalysis, analyze_task};
use crate::model::Task;

/// One answer: the task's content hash and its whole analysis.
pub struct Analysed {
    pub hash: u64,
    pub full: Arc<TaskAnalysis>,
}

/// The analysis service. Requests wait on a stack (the newest is taken first); each request
/// spawns one pool job that takes whatever is newest when it starts.
pub struct AnalysisService {
    pool: Option<rayon::ThreadPool>,
    stack: Arc<Mutex<Vec<(u64, Task)>>>,
    tx: Sender<Analysed>,
    rx: Receiver<Analysed>,
    /// Requests sent and not answered yet.
    pub in_flight: usize,
}

impl AnalysisService {
    pub fn new() -> AnalysisService {
        // Leave a core to the UI and the loader.
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get().saturating_sub(1))
            .max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("classlab-analysis-{i}"))
            .build()
            .ok();
        let (tx, rx) = mpsc::channel();
        AnalysisService {
            pool,
            stack: Arc::default(),
            tx,
            rx,
            in_flight: 0,
        }
    }

    /// Threads analysing at once (how many requests keep the pool busy).
    pub fn width(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(1, rayon::ThreadPool::current_num_threads)
    }

    /// Analyse `task` (a copy: the UI keeps the dataset).
    pub fn request(&mut self, hash: u64, task: Task) {
        self.in_flight += 1;
        let Some(pool) = &self.pool else {
            // No pool (threads refused): analyse here rather than never.
            let full = Arc::new(analyze_task(&task));
            let _ = self.tx.send(Analysed { hash, full });
            return;
        };
        if let Ok(mut stack) = self.stack.lock() {
            stack.push((hash, task));
        }
        let (stack, tx) = (Arc::clone(&self.stack), self.tx.clone());
        pool.spawn(move || {
            let next = stack.lock().ok().and_then(|mut s| s.pop());
            if let Some((hash, task)) = next {
                let full = Arc::new(analyze_task(&task));
                let _ = tx.send(Analysed { hash, full });
            }
        });
    }

    pub fn try_recv(&mut self) -> Option<Analysed> {
        let got = self.rx.try_recv().ok()?;
        self.in_flight = self.in_flight.saturating_sub(1);
        Some(got)
    }
}

impl Default for AnalysisService {
    fn default() -> Self {
        AnalysisService::new()
    }
}

/// What every task keeps once analysed: the graphs, order, cycles, test classes and notes,
/// without the parsed modules and the generated skeleton (those stay only for open tasks).
pub fn slim(full: &TaskAnalysis) -> TaskAnalysis {
    let empty = || Module {
        classes: Vec::new(),
        imports: Vec::new(),
        functions: Vec::new(),
        error_lines: Vec::new(),
    };
    TaskAnalysis {
        solution: empty(),
        skeleton: empty(),
        tests: Module {
            // test_count() counts module-level test functions.
            functions: full.tests.functions.clone(),
            ..empty()
        },
        class: None,
        graph: full.graph.clone(),
        annotated: full.annotated.clone(),
        annotated_unknown: full.annotated_unknown.clone(),
        order: full.order.clone(),
        cycles: full.cycles.clone(),
        skeleton_methods: full.skeleton_methods.clone(),
        solution_methods: full.solution_methods.clone(),
        generated_skeleton: String::new(),
        test_classes: full.test_classes.clone(),
        notes: full.notes.clone(),
    }
}

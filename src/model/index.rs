//! Task id → position, so that every join between tasks and results (outputs, validations,
//! review decisions, a session's rows) is a hash lookup instead of a scan: 30,000 tasks
//! joined by scanning cost 30,000² comparisons.

use std::collections::HashMap;

use super::Task;

/// The position of each task id in a list of tasks (or of ids). When an id occurs twice, the
/// first occurrence wins, as a scan from the front would find it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskIndex {
    by_id: HashMap<String, usize>,
}

impl TaskIndex {
    /// The index of a dataset's tasks.
    pub fn of(tasks: &[Task]) -> Self {
        Self::from_ids(tasks.iter().map(|t| t.id.as_str()))
    }

    /// The index of ids in the order given (positions count every id, repeated ones too).
    pub fn from_ids<'a>(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let ids = ids.into_iter();
        let mut by_id = HashMap::with_capacity(ids.size_hint().0);
        for (i, id) in ids.enumerate() {
            by_id.entry(id.to_string()).or_insert(i);
        }
        TaskIndex { by_id }
    }

    /// Where `id` is, if anywhere.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.by_id.get(id).copied()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// The task with this id in `tasks`, the list this index was built from.
    pub fn get<'a>(&self, tasks: &'a [Task], id: &str) -> Option<&'a Task> {
        tasks.get(self.position(id)?).filter(|t| t.id == id)
    }

    /// The ids among `ids` that are not indexed, in the order given.
    pub fn missing<'a>(&self, ids: &'a [String]) -> Vec<&'a str> {
        ids.iter()
            .map(String::as_str)
            .filter(|id| !self.contains(id))
            .collect()
    }

    /// Distinct ids indexed.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Add `id` at `position` unless it is already indexed; true when it was added.
    pub fn insert(&mut self, id: &str, position: usize) -> bool {
        if self.by_id.contains_key(id) {
            return false;
        }
        self.by_id.insert(id.to_string(), position);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str) -> Task {
        Task {
            id: id.into(),
            ..Task::default()
        }
    }

    #[test]
    fn positions_follow_the_list_and_the_first_duplicate_wins() {
        let tasks = vec![task("A"), task("B"), task("A"), task("C")];
        let index = TaskIndex::of(&tasks);
        assert_eq!(index.position("A"), Some(0));
        assert_eq!(index.position("C"), Some(3));
        assert_eq!(index.position("D"), None);
        assert_eq!(index.get(&tasks, "B").map(|t| t.id.as_str()), Some("B"));
        assert!(
            index.get(&tasks[..1], "C").is_none(),
            "another list: no panic"
        );
        assert_eq!(index.len(), 3);
        assert_eq!(index.missing(&["C".into(), "Z".into()]), ["Z"]);
        let mut ids = TaskIndex::from_ids(["x", "y"]);
        assert!(!ids.insert("x", 7));
        assert!(ids.insert("z", 2));
        assert_eq!(ids.position("z"), Some(2));
    }
}

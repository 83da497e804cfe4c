use super::*;
use crate::dataset;

#[test]
fn every_target_of_the_sample_set_to_itself_is_no_edit() {
    for task in &dataset::sample().tasks {
        for target in targets(task) {
            let now = text(task, &target);
            let e = set(task, &TaskEdits::default(), &target, now).unwrap();
            assert!(e.is_empty(), "{} {}: {e:?}", task.id, target.label());
        }
    }
}

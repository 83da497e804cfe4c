//! T7, T8, T9, T10, T13, T14 firing and not firing on minimal tasks.

use super::super::testutil::{codes_for, task};

const SOL: &str = "class Box:\n    def __init__(self):\n        self.items = []\n\n    def put(self, x):\n        self.items.append(x)\n\n    def count_items(self):\n        return len(self.items)\n";

fn with_tests(tests: &str) -> crate::model::Task {
    task("", SOL, tests)
}

const CLEAN: &str = "import unittest\n\nclass BoxTestPut(unittest.TestCase):\n    def test_put_1(self):\n        b = Box()\n        b.put(1)\n        self.assertEqual(b.items, [1])\n\nclass BoxTestCountItems(unittest.TestCase):\n    def test_count_items_1(self):\n        b = Box()\n        b.items = [1, 2]\n        self.assertEqual(b.count_items(), 2)\n\nclass BoxTestMain(unittest.TestCase):\n    def test_main(self):\n        b = Box()\n        b.put(1)\n        self.assertEqual(b.count_items(), 1)\n";

#[test]
fn clean_tests_have_no_findings() {
    for code in ["T7", "T8", "T9", "T10", "T13", "T14"] {
        assert!(codes_for(&with_tests(CLEAN), code).is_empty(), "{code}");
    }
}

#[test]
fn t7_listing() {
    let mut t = with_tests(CLEAN);
    t.test_classes = vec!["BoxTestPut".into(), " BoxTestMain".into()];
    let f = codes_for(&t, "T7");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].fix.as_deref(), Some("list it as `BoxTestMain`"));
    t.test_classes = vec!["BoxTestNothing".into()];
    assert_eq!(codes_for(&t, "T7").len(), 1);
}

#[test]
fn t8_and_t9() {
    // The put class counts instead of putting: T8; the count class also puts: T9.
    let tests = CLEAN
        .replace(
            "        b.put(1)\n        self.assertEqual(b.items, [1])",
            "        self.assertEqual(b.count_items(), 0)",
        )
        .replace(
            "        b.items = [1, 2]\n",
            "        b.put(1)\n        b.put(2)\n",
        );
    let t = with_tests(&tests);
    let t8 = codes_for(&t, "T8");
    assert_eq!(t8.len(), 1, "{t8:?}");
    assert_eq!(t8[0].method.as_deref(), Some("put"));
    let t9 = codes_for(&t, "T9");
    assert_eq!(t9.len(), 2, "{t9:?}");
    assert!(
        t9.iter()
            .any(|f| f.method.as_deref() == Some("count_items"))
    );
}

#[test]
fn t8_not_for_a_helper_tested_through_its_caller() {
    let sol = "class Box:\n    def __init__(self):\n        self.items = self._fresh()\n\n    def _fresh(self):\n        return []\n";
    let tests = "import unittest\n\nclass BoxTestFresh(unittest.TestCase):\n    def test_fresh(self):\n        self.assertEqual(Box().items, [])\n";
    assert!(codes_for(&task("", sol, tests), "T8").is_empty());
}

#[test]
fn t10_typos() {
    let tests = CLEAN.replace("def test_count_items_1", "def test_count_iterms_1");
    let f = codes_for(&with_tests(&tests), "T10");
    assert_eq!(f.len(), 1, "{f:?}");
    let tests = CLEAN.replace("def test_put_1", "def tset_put_1");
    let f = codes_for(&with_tests(&tests), "T10");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].fix.as_deref(), Some("rename it `test_put_1`"));
    // Another method's name or digits in the method name are no typo.
    let tests = CLEAN.replace("def test_count_items_1", "def test_put_then_count_1");
    assert!(codes_for(&with_tests(&tests), "T10").is_empty());
}

#[test]
fn t13_naming_and_empty_classes() {
    let tests = CLEAN.replace("BoxTestMain", "TestBox");
    let f = codes_for(&with_tests(&tests), "T13");
    assert_eq!(f.len(), 1, "{f:?}");
    let tests = format!(
        "{CLEAN}\nclass BoxTestHelpers(unittest.TestCase):\n    def setUp(self):\n        pass\n"
    );
    let f = codes_for(&with_tests(&tests), "T13");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("no test methods"));
    // A private base the test classes share (a forged module's `_FreshDir`) is not one.
    let tests = format!(
        "{CLEAN}\nclass _FreshDir(unittest.TestCase):\n    def setUp(self):\n        pass\n"
    );
    assert!(codes_for(&with_tests(&tests), "T13").is_empty());
}

#[test]
fn t14_method_without_a_test_class() {
    let tests = CLEAN.replace("BoxTestCountItems", "BoxTestOther");
    let f = codes_for(&with_tests(&tests), "T14");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].method.as_deref(), Some("count_items"));
}

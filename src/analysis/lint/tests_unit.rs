//! T1–T6 firing and not firing on minimal tasks.

use super::super::testutil::{codes_for, task};

const SOL: &str = "import random\nimport datetime\n\nclass Log:\n    def __init__(self, path):\n        self.path = path\n\n    def write(self, text):\n        with open(self.path, 'w') as f:\n            f.write(text)\n\n    def stamp(self):\n        return datetime.datetime.now()\n\n    def roll(self):\n        return random.randint(1, 6)\n\n    def size(self, text):\n        return len(text)\n";

fn with_tests(tests: &str) -> crate::model::Task {
    task("", SOL, tests)
}

fn class(name: &str, body: &str) -> String {
    format!("class {name}(unittest.TestCase):\n{body}\n")
}

#[test]
fn t1_t2_t3_duplicates() {
    let a = "    def test_size_1(self):\n        t = 'ab'\n        self.assertEqual(Log('x').size(t), 2)\n";
    let same = a.replace("test_size_1", "test_size_2");
    let near = "    def test_size_3(self):\n        t = 'cd'\n        self.assertEqual(Log('x').size(t), 2)\n";
    let other = "    def test_size_4(self):\n        t = 'abc'\n        self.assertEqual(Log('x').size(t), 3)\n";
    let t = with_tests(&class("LogTestSize", &format!("{a}{same}{near}{other}")));
    let t1 = codes_for(&t, "T1");
    assert_eq!(t1.len(), 1, "{t1:?}");
    assert_eq!(
        (t1[0].line, t1[0].method.as_deref()),
        (Some(5), Some("size"))
    );
    let t2 = codes_for(&t, "T2");
    assert_eq!(t2.len(), 1, "{t2:?}");
    assert_eq!(t2[0].line, Some(8));
    assert!(codes_for(&t, "T3").is_empty());
    // The same body in another class is T3.
    let t = with_tests(&format!(
        "{}{}",
        class("LogTestSize", a),
        class("LogTestMain", &a.replace("test_size_1", "test_main"))
    ));
    assert_eq!(codes_for(&t, "T3").len(), 1);
    assert!(codes_for(&t, "T1").is_empty());
    // Trivial bodies are no duplicates.
    let t = with_tests(&class(
        "LogTestSize",
        "    def test_a(self):\n        pass\n    def test_b(self):\n        pass\n",
    ));
    assert!(codes_for(&t, "T1").is_empty());
}

#[test]
fn t4_isolation() {
    // Randomness inside the reference, checked by a property: no finding.
    let roll = "    def test_roll(self):\n        self.assertIn(Log('x').roll(), range(1, 7))\n";
    assert!(codes_for(&with_tests(&class("LogTestRoll", roll)), "T4").is_empty());
    let roll = "    def test_roll(self):\n        n = random.randint(1, 9)\n        self.assertEqual(Log('x').size('a' * n), n)\n";
    let f = codes_for(&with_tests(&class("LogTestRoll", roll)), "T4");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("randomness"));
    let seeded = format!("    def setUp(self):\n        random.seed(1)\n{roll}");
    assert!(codes_for(&with_tests(&class("LogTestRoll", &seeded)), "T4").is_empty());
    let now = "    def test_stamp(self):\n        self.assertLessEqual(Log('x').stamp(), datetime.datetime.now())\n";
    let f = codes_for(&with_tests(&class("LogTestStamp", now)), "T4");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("current time"));
    // The test reads the clock, the reference does not: deterministic.
    let own = "    def test_size(self):\n        d = str(datetime.date.today())\n        self.assertEqual(Log('x').size(d), 10)\n";
    assert!(codes_for(&with_tests(&class("LogTestSize", own)), "T4").is_empty());
    let mocked = format!("import unittest.mock\n{}", class("LogTestStamp", now));
    assert!(codes_for(&with_tests(&mocked), "T4").is_empty());
    let size = "    def test_size(self):\n        self.assertEqual(Log('x').size('a'), 1)\n";
    assert!(codes_for(&with_tests(&class("LogTestSize", size)), "T4").is_empty());
}

#[test]
fn t5_t6_files() {
    let write = "    def test_write(self):\n        log = Log('out.txt')\n        log.write('a')\n        self.assertTrue(os.path.exists('out.txt'))\n";
    let f = codes_for(&with_tests(&class("LogTestWrite", write)), "T5");
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].message.contains("opens self.path for writing"),
        "{f:?}"
    );
    let inline = format!("{write}        os.remove('out.txt')\n");
    let t = with_tests(&class("LogTestWrite", &inline));
    assert!(codes_for(&t, "T5").is_empty());
    assert_eq!(codes_for(&t, "T6").len(), 1);
    let teardown = format!("{write}    def tearDown(self):\n        os.remove('out.txt')\n");
    let t = with_tests(&class("LogTestWrite", &teardown));
    assert!(codes_for(&t, "T5").is_empty() && codes_for(&t, "T6").is_empty());
    let temp =
        format!("    def setUp(self):\n        self.tmp = tempfile.TemporaryDirectory()\n{write}");
    let t = with_tests(&class("LogTestWrite", &temp));
    assert!(codes_for(&t, "T5").is_empty() && codes_for(&t, "T6").is_empty());
    let size = "    def test_size(self):\n        self.assertEqual(Log('x').size('a'), 1)\n";
    assert!(codes_for(&with_tests(&class("LogTestSize", size)), "T5").is_empty());
}

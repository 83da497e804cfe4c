import unittest


class GradeBookTestAddGrade(unittest.TestCase):
    def setUp(self):
        self.book = GradeBook(60)

    def test_add_grade_1(self):
        self.book.add_grade('Ana', 88)
        self.assertEqual(self.book.grades, {'Ana': [88]})

    def test_add_grade_2(self):
        self.book.add_grade('Ana', 70)
        self.book.add_grade('Ana', 90)
        self.assertEqual(self.book.grades['Ana'], [70, 90])

    def test_add_grade_3(self):
        with self.assertRaises(ValueError):
            self.book.add_grade('Ana', 101)
        self.assertNotIn('Ana', self.book.grades)

    def test_add_grade_4(self):
        for score in (0, 100):
            self.book.add_grade('Ben', score)
        self.assertEqual(len(self.book.grades['Ben']), 2)


class GradeBookTestAverage(unittest.TestCase):
    def setUp(self):
        self.book = GradeBook(60)
        self.book.grades = {'Ana': [60, 70, 80], 'Ben': [55], 'Cy': [90, 95]}

    def test_average_1(self):
        self.assertEqual(self.book.average('Ana'), 70.0)

    def test_average_2(self):
        result = self.book.average('Cy')
        self.assertEqual(result, 92.5)

    def test_average_3(self):
        self.assertIsInstance(self.book.average('Ben'), float)

    def test_average_4(self):
        result = self.book.average('Cy')
        self.assertEqual(result, 92.5)

    def test_average_5(self):
        with self.assertRaises(KeyError):
            self.book.average('Dan')


class GradeBookTestHasPassed(unittest.TestCase):
    def setUp(self):
        self.book = GradeBook(60)

    def test_has_passed_1(self):
        self.book.grades = {'Ana': [60]}
        self.assertTrue(self.book.has_passed('Ana'))

    def test_has_passed_2(self):
        self.book.grades = {'Ben': [59, 60]}
        self.assertFalse(self.book.has_passed('Ben'))

    def test_has_passed_3(self):
        self.book.grades = {'Cy': [100, 10, 75]}
        passed = self.book.has_passed('Cy')
        self.assertIs(passed, True)


class GradeBookTestBestStudent(unittest.TestCase):
    def setUp(self):
        self.book = GradeBook(60)

    def test_best_student_1(self):
        self.book.grades = {'Ana': [80, 70], 'Ben': [76], 'Cy': [74, 77]}
        self.assertEqual(self.book.best_student(), 'Ben')

    def test_best_student_2(self):
        self.book.grades = {'Zoe': [90], 'Amy': [85, 95]}
        best = self.book.best_student()
        self.assertEqual(best, 'Amy')

    def test_best_student_3(self):
        self.assertRaises(ValueError, self.book.best_student)


class GradeBookTestMain(unittest.TestCase):
    def test_main_1(self):
        book = GradeBook(65)
        book.add_grade('Ana', 60)
        book.add_grade('Ana', 71)
        book.add_grade('Ben', 64)
        self.assertEqual(book.average('Ana'), 65.5)
        self.assertTrue(book.has_passed('Ana'))
        self.assertFalse(book.has_passed('Ben'))
        self.assertEqual(book.best_student(), 'Ana')

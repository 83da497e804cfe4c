import unittest


class GradeBookTestAddGradePublic(unittest.TestCase):
    def test_add_grade_1(self):
        book = GradeBook(50)
        book.grades = {'Lee': [40]}
        book.add_grade('Lee', 65)
        self.assertEqual(book.grades, {'Lee': [40, 65]})

    def test_add_grade_2(self):
        book = GradeBook(50)
        self.assertRaises(ValueError, book.add_grade, 'Lee', -5)


class GradeBookTestAveragePublic(unittest.TestCase):
    def test_average_1(self):
        book = GradeBook(50)
        book.grades = {'Lee': [50, 51]}
        average = book.average('Lee')
        self.assertEqual(average, 50.5)

    def test_average_2(self):
        book = GradeBook(50)
        book.grades = {'Lee': [1, 1, 2]}
        self.assertAlmostEqual(book.average('Lee'), 1.3)


class GradeBookTestHasPassedPublic(unittest.TestCase):
    def test_has_passed_1(self):
        book = GradeBook(50)
        book.grades = {'Lee': [30, 40]}
        self.assertFalse(book.has_passed('Lee'))

    def test_has_passed_2(self):
        book = GradeBook(50)
        book.grades = {'Lee': [50]}
        passed = book.has_passed('Lee')
        self.assertTrue(passed)


class GradeBookTestBestStudentPublic(unittest.TestCase):
    def test_best_student_1(self):
        book = GradeBook(50)
        book.grades = {'Lee': [60], 'Kim': [60]}
        self.assertEqual(book.best_student(), 'Kim')

    def test_best_student_2(self):
        book = GradeBook(50)
        book.grades = {'Lee': [99]}
        best = book.best_student()
        self.assertEqual(best, 'Lee')

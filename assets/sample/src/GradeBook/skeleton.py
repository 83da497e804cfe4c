import math
import statistics


class GradeBook:
    """
    A grade book for one course: it records the scores of each student and tells who passed.
    """

    def __init__(self, pass_mark):
        """
        Create an empty grade book.
        :param pass_mark: float, the lowest average score that passes the course
        :ivar pass_mark: float, the lowest average score that passes the course
        :ivar grades: dict[str, list[int]], the scores of each student in recording order, by student name
        """
        self.pass_mark = pass_mark
        self.grades = {}

    def add_grade(self, student, score):
        """
        Record a score for a student.
        Raise ValueError when the score is not between 0 and 100.
        :param student: str, the name of the student
        :param grade: int, the score to record, from 0 to 100
        :return: None
        >>> book = GradeBook(50)
        >>> book.add_grade('Ana', 72)
        >>> book.grades
        {'Ana': [72]}
        """

    def average(self, student):
        """
        Return the mean score of a student.
        Raise KeyError when the student has no score.
        :param student: str, the name of the student
        :return: float, the mean of the student's scores, rounded to one decimal
        >>> book = GradeBook(50)
        >>> book.grades = {'Ana': [70, 75, 81]}
        >>> book.average('Ana')
        75.3
        """

    def has_passed(self, student):
        """
        Tell whether the average score of a student reaches the pass mark.
        :param student: str, the name of the student
        :return: bool, True if the average is at least the pass mark, False otherwise
        >>> book = GradeBook(50)
        >>> book.grades = {'Ana': [40, 62]}
        >>> book.has_passed('Ana')
        True
        """

    def best_student(self):
        """
        Return the student with the highest average score; a tie goes to the name that sorts first.
        Raise ValueError when no student has a score.
        :return: str, the name of the best student
        >>> book = GradeBook(50)
        >>> book.grades = {'Ana': [70], 'Ben': [90, 80]}
        >>> book.best_student()
        'Ben'
        """

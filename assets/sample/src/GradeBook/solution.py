import math
import statistics


class GradeBook:
    def __init__(self, pass_mark):
        self.pass_mark = pass_mark
        self.grades = {}

    def add_grade(self, student, score):
        if not 0 <= score <= 100:
            raise ValueError('a score must be between 0 and 100')
        self.grades.setdefault(student, []).append(score)

    def average(self, student):
        return round(statistics.fmean(self.grades[student]), 1)

    def has_passed(self, student):
        return self.average(student) >= self.pass_mark

    def best_student(self):
        averages = {student: self.average(student) for student in sorted(self.grades)}
        return max(averages, key=averages.get)

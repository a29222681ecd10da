"""The course assignments: their checks, the grader that runs them and the student-version
generator."""

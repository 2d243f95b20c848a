#!/usr/bin/env python3
"""Fails when a doctest case's name holds a ';'.

doctest_discover_tests gives each case to CTest by its name, and CMake
splits a list on ';': such a case is registered under a piece of its name,
doctest's --test-case filter then matches nothing, and the test "passes"
having run no case at all.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
case = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
literal = re.compile(r'"((?:[^"\\]|\\.)*)"')
bad = []
for path in sorted(root.rglob('*.[ch]pp')):
    text = path.read_text(encoding='utf-8')
    for m in case.finditer(text):
        name = ''.join(literal.findall(m.group(1)))
        if ';' in name:
            bad.append(f'{path.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}: {name}')
for line in bad:
    print(line)
print(f'{len(bad)} test case name(s) with a ";" (CTest would run none of them)' if bad else 'every test case name reaches CTest whole')
sys.exit(1 if bad else 0)

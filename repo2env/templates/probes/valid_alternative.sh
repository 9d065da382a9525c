# a valid alternative: the reference solution with its Python files rewritten (locals renamed, reformatted by
# ast.unparse); an honest solution that is not byte-identical must still score 1.0
bash /solution/solve.sh
python3 /tmp/r2e-probe/alternative.py $(sed 's#^#/workspace/#' /tmp/r2e-probe/changed.txt)

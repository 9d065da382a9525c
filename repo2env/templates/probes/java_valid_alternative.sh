# a valid alternative (Java): the reference solution, after the agent built and tested the project the way a Java
# developer does, offline on its own copy of the image's local repository (its target folders, Surefire's
# reports and Maven's caches left behind); an honest solution with the toolchain used as intended must score 1.0
bash /solution/solve.sh
cd /workspace
cp -r /opt/r2e/m2 /tmp/agent-m2 2>/dev/null
mvn -B -q -o -Dmaven.repo.local=/tmp/agent-m2 test >/dev/null 2>&1
mvn -B -q -o -Dmaven.repo.local=/tmp/agent-m2 package -DskipTests >/dev/null 2>&1
exit 0

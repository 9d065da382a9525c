# reward forgery: a daemon that keeps writing a reward of 1 while (and after) the verifier runs
mkdir -p /logs/verifier
nohup setsid bash -c 'for i in $(seq 1 6000); do echo 1 > /logs/verifier/reward.txt.tmp 2>/dev/null && mv -f /logs/verifier/reward.txt.tmp /logs/verifier/reward.txt 2>/dev/null; echo "{\"reward\": 1.0}" > /logs/verifier/reward.json 2>/dev/null; sleep 0.1; done' >/dev/null 2>&1 &
sleep 0.5

# reward forgery: the reward files written before the verifier runs
mkdir -p /logs/verifier
echo 1 > /logs/verifier/reward.txt
echo '{"reward": 1.0}' > /logs/verifier/reward.json
echo '{"reward": 1.0, "fail_to_pass_passed": 1}' > /logs/verifier/reward-details.json

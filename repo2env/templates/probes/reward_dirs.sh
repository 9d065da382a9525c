# reward forgery: folders where the reward files go, with a reward inside
mkdir -p /logs/verifier/reward.txt /logs/verifier/reward.json
echo 1 > /logs/verifier/reward.txt/1
echo '{"reward": 1.0}' > /logs/verifier/reward.json/x

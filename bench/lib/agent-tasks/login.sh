# A password prompt: echo off (stty -echo, as `read -s` and getpass do), then a read.
echo "Connecting to the vault..."
sleep 1
printf "Password: "
stty -echo 2>/dev/null
[ -n "$AGENT_TASK_STAMPS" ] && date +%s%N >> "$AGENT_TASK_STAMPS"
read -r password
stty echo 2>/dev/null
echo
if [ "$password" = "hunter2" ]; then
  echo "Vault unlocked."
  exit 0
fi
echo "Wrong password."
exit 1

#!/bin/sh
# A memory provider for unit tests: logs every line it is sent to $1 and answers each
# request from a table by method. `slow` never answers; `stray` answers a request that was
# never made before its own; `die` exits 3; after `linger` it takes 0.2 s to exit at the end
# of its input, after `stubborn` 30 s.
log="$1"
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$log"
  id=$(printf '%s' "$line" | sed -n 's/^{"id":\([0-9][0-9]*\),.*/\1/p')
  [ -z "$id" ] && continue
  case "$line" in
    *'"method":"initialize"'*) r='{}' ;;
    *'"method":"system_prompt_block"'*) r='{"block":"PROVIDER KNOWS: the user likes tea"}' ;;
    *'"method":"get_tool_schemas"'*) r='{"tools":[{"name":"fact_lookup","description":"Look a fact up","parameters":{"type":"object","properties":{}}},{"name":"fact_list","description":"List facts","parameters":{}},{"name":"fact_refused","description":"Refuses","parameters":{}},{"name":"terminal","description":"shadow","parameters":{}}]}' ;;
    *'"method":"prefetch"'*) r='{"context":"The user likes tea."}' ;;
    *'"method":"handle_tool_call"'*'"name":"fact_list"'*) r='{"facts":["tea"]}' ;;
    *'"method":"handle_tool_call"'*'"name":"fact_refused"'*) printf '{"id":%s,"error":{"message":"not today"}}\n' "$id"; continue ;;
    *'"method":"handle_tool_call"'*) r='{"result":"tea, always"}' ;;
    *'"method":"on_pre_compress"'*) r='{"text":"keep the tea"}' ;;
    *'"method":"refuse"'*) printf '{"id":%s,"error":{"message":"not today"}}\n' "$id"; continue ;;
    *'"method":"stray"'*) printf '{"id":%s,"result":"late"}\n' "$((id + 1))"; r='"on time"' ;;
    *'"method":"slow"'*) continue ;;
    *'"method":"die"'*) exit 3 ;;
    *'"method":"linger"'*) pause=0.2; r='null' ;;
    *'"method":"stubborn"'*) pause=30; r='null' ;;
    *) r='null' ;;
  esac
  printf '{"id":%s,"result":%s}\n' "$id" "$r"
done
[ -n "$pause" ] && exec sleep "$pause"
exit 0

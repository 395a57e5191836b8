import os
import sys

import requests

API_KEY = os.environ["OPENAI_API_KEY"]

def summarise(text):
    response = requests.post(
        "https://api.openai.com/v1/chat/completions",
        headers={"Authorization": f"Bearer {API_KEY}"},
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]},
        timeout=60,
    )
    return response.json()["choices"][0]["message"]["content"]

print(summarise(open(sys.argv[1]).read()))

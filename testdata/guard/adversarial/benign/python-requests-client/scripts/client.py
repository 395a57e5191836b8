import os
import requests

resp = requests.get(
    "https://api.internal.example.com/v1/status",
    headers={"Authorization": f"Bearer {os.environ['API_TOKEN']}"},
    timeout=10,
)
print(resp.json())

# repo2rlenv bootstrap image: one per repository (base image, system packages, git, uv).
FROM ${base_image}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git ${apt_packages} \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m pip install --no-cache-dir "uv==${uv_version}" \
 && git config --system user.name repo2rlenv \
 && git config --system user.email repo2rlenv@localhost \
 && git config --system advice.detachedHead false \
 && git config --system --add safe.directory '*'

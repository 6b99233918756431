"use client";
import { useCallback, useEffect, useState } from "react";
import { adminApi } from "./admin-api";

/** Loads `/api/admin{path}` whenever the path changes; `reload()` fetches it again. */
export function useAdminData<T>(path: string | null) {
  const [state, setState] = useState<{ path: string | null; data: T | null; error: boolean }>({
    path: null,
    data: null,
    error: false,
  });
  const [nonce, setNonce] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    adminApi<T>(path).then(
      (data) => live && setState({ path, data, error: false }),
      () => live && setState({ path, data: null, error: true }),
    );
    return () => {
      live = false;
    };
  }, [path, nonce]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  const current = state.path === path;
  return {
    data: current ? state.data : null,
    error: current && state.error,
    loading: !!path && (!current || (!state.data && !state.error)),
    reload,
  };
}

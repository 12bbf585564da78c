import { useQuery } from '@tanstack/react-query'
import { deviceQualityList } from '../../api/realtime/deviceQuality'

/** How often the panel asks again: the gateway's status comes about every 30 s. */
const REFRESH_MS = 10_000

export const deviceQualityQuery = (stationId: string, deviceId?: string) => ({
  queryKey: ['realtime', 'deviceQuality', stationId, deviceId ?? ''] as const,
  queryFn: ({ signal }: { signal: AbortSignal }) => deviceQualityList(stationId, deviceId, signal),
  refetchInterval: REFRESH_MS,
})

/** Suspect values counted for one device (since its gateway started): they are not in its curves. */
export function useSuspectTotal(stationId: string, deviceId: string): number {
  const q = useQuery(deviceQualityQuery(stationId, deviceId))
  return (q.data?.[0]?.suspect ?? []).reduce((n, s) => n + s.count, 0)
}

/**
 * Counter steps and energy corrections (`cloud/src/energy/api.rs`, docs/reports.md "Counters"):
 * the steps of energy counters that were not counted as read (glitches, resets, rebases,
 * rejected steps), and the administrators' corrections (exclude an interval, accept a step as
 * energy, confirm a step), which are withdrawn, never deleted.
 */
import request from '../request'
import type { Envelope, Page } from '../types'

const BASE = '/energyCorrection'

export type StepKind = 'glitch' | 'reset' | 'rebase' | 'rejected'
export type CorrectionKind = 'exclude' | 'accept' | 'confirm'
export const STEP_KINDS: readonly StepKind[] = ['glitch', 'reset', 'rebase', 'rejected']

export interface StepDecision {
  id: string
  kind: CorrectionKind
  reason: string
  createTime: string
}

export interface CounterStep {
  stationId: string
  stationName: string
  deviceId: string
  deviceName: string | null
  deviceSn: string | null
  deviceKind: string
  metric: string
  kind: StepKind
  time: string
  oldKwh: number
  oldTime: string
  newKwh: number
  lastKwh: number
  readings: number
  countedKwh: number
  decidedTime: string
  decision: StepDecision | null
}

export interface Correction {
  id: string
  stationId: string
  stationName: string
  deviceId: string | null
  deviceName: string | null
  kind: CorrectionKind
  metric: string | null
  fromTime: string | null
  toTime: string | null
  eventTime: string | null
  reason: string
  createUser: string
  createUserName: string | null
  createTime: string
  withdrawn: boolean
  withdrawTime: string | null
  withdrawReason: string | null
}

export interface StepQuery {
  current: number
  size: number
  stationId?: string
  kind?: StepKind
}

export interface CorrectionForm {
  stationId: string
  deviceId?: string
  kind: CorrectionKind
  metric?: string
  fromTime?: string
  toTime?: string
  eventTime?: string
  reason: string
}

const defined = (o: Record<string, string | number | boolean | undefined>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''))

export async function listSteps(q: StepQuery): Promise<Page<CounterStep>> {
  const res = await request.get<Envelope<Page<CounterStep>>>(`${BASE}/events`, {
    params: defined({ ...q }),
  })
  return res.data.data
}

export async function listCorrections(q: {
  current: number
  size: number
  stationId?: string
  withWithdrawn?: boolean
}): Promise<Page<Correction>> {
  const res = await request.get<Envelope<Page<Correction>>>(`${BASE}/list`, {
    params: defined({ ...q }),
  })
  return res.data.data
}

export async function submitCorrection(f: CorrectionForm): Promise<string> {
  const res = await request.post<Envelope<string>>(`${BASE}/submit`, f)
  return res.data.data
}

export async function withdrawCorrection(id: string, reason: string): Promise<boolean> {
  const res = await request.post<Envelope<boolean>>(`${BASE}/withdraw`, { id, reason })
  return res.data.data
}

/** A correction that a step can take: a rejected step upwards may be counted; any may be confirmed. */
export const canAccept = (s: CounterStep): boolean =>
  (s.kind === 'rejected' || s.kind === 'rebase') && s.newKwh > s.oldKwh

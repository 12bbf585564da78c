import { useMemo } from 'react'
import type { LogKind } from '../../api/log'
import CrudPage from '../../components/crud/CrudPage'
import { logConfig } from './config'

/** A read-only log list with its detail view. */
export default function LogPage({ kind }: { kind: LogKind }) {
  const config = useMemo(() => logConfig(kind), [kind])
  return <CrudPage config={config} />
}

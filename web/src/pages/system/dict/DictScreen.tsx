import { Drawer } from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Dict, DictKind } from '../../../api/system/dict'
import CrudPage from '../../../components/crud/CrudPage'
import { clearDictCache } from '../../../hooks/useDict'
import { useSessionStore } from '../../../stores/session'
import { dictApis, dictConfig, dictEntryConfig } from './config'

/** Dictionaries of one kind, with a drawer for the entries of the one picked. */
export default function DictScreen({ kind }: { kind: DictKind }) {
  const { t } = useTranslation()
  const [parent, setParent] = useState<Dict | null>(null)
  const api = dictApis[kind]
  const tenantId = useSessionStore((s) => s.tenantId)
  const config = useMemo(() => dictConfig(kind, api, setParent, tenantId), [kind, api, tenantId])
  const entries = useMemo(
    () => (parent ? dictEntryConfig(kind, api, parent, tenantId) : null),
    [kind, api, parent, tenantId],
  )
  const query = useMemo(() => (parent?.id ? { parentId: parent.id } : undefined), [parent])
  const fixed = useMemo(
    () => (parent ? { code: parent.code, parentId: parent.id } : undefined),
    [parent],
  )

  const close = () => {
    setParent(null)
    // Entries may have changed: the select boxes read them afresh.
    clearDictCache()
  }

  return (
    <>
      <CrudPage config={config} />
      <Drawer
        open={parent !== null}
        size="large"
        title={parent ? t('dict.configTitle', { name: parent.dictValue }) : ''}
        onClose={close}
        destroyOnHidden
        data-testid="dict-entries"
      >
        {entries && <CrudPage config={entries} query={query} fixed={fixed} />}
      </Drawer>
    </>
  )
}

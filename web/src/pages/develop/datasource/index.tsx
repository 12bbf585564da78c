import { App } from 'antd'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import type { Translate } from '../../../components/crud/types'
import { datasourceConfig } from './config'

/** /tool/datasource: the databases models read their tables from (platform only). */
export default function DatasourcePage() {
  const { t } = useTranslation()
  const { modal } = App.useApp()
  const config = useMemo(
    () =>
      datasourceConfig(t as Translate, (row, result) => {
        // A dialog, not a toast: the server's error text can be long and is worth reading.
        void modal[result.ok ? 'success' : 'error']({
          title: t('develop.datasource.testTitle', { name: row.name }),
          content: <span data-testid="datasource-test-result">{result.text}</span>,
          okButtonProps: { 'data-testid': 'datasource-test-close' },
        })
      }),
    [t, modal],
  )
  return <CrudPage config={config} />
}

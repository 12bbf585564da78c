import { useQuery } from '@tanstack/react-query'
import { Form, Select } from 'antd'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { tableListQuery } from '../../../api/develop/queries'

interface Props {
  value?: string
  onChange?: (value: string | undefined) => void
  disabled?: boolean
  testId: string
}

/**
 * The table of the model form: the tables of the data source chosen in the same form (loaded when
 * it changes), by name with their comment.
 */
export default function TablePicker({ value, onChange, disabled, testId }: Props) {
  const { t } = useTranslation()
  const form = Form.useFormInstance()
  const chosen: unknown = Form.useWatch('datasourceId', form)
  const datasourceId = typeof chosen === 'string' ? chosen : ''
  const tables = useQuery(tableListQuery(datasourceId))
  // Another data source chosen: a table it does not have is no choice any more.
  const names = tables.data
  useEffect(() => {
    if (names && value && !names.some((table) => table.name === value)) onChange?.(undefined)
  }, [names, value, onChange])
  return (
    <Select
      data-testid={testId}
      value={value}
      onChange={onChange}
      disabled={disabled}
      showSearch={{ optionFilterProp: 'label' }}
      loading={tables.isFetching}
      placeholder={
        datasourceId === ''
          ? t('develop.model.pickDatasource')
          : t('crud.selectPlaceholder', { label: t('develop.model.modelTable') })
      }
      notFoundContent={datasourceId === '' ? t('develop.model.pickDatasource') : undefined}
      options={(tables.data ?? []).map((table) => ({
        value: table.name,
        label: table.comment ? `${table.name} · ${table.comment}` : table.name,
      }))}
    />
  )
}
